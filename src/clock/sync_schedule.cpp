#include "clock/sync_schedule.hpp"

#include <stdexcept>

namespace overlap::clock {
namespace {

std::vector<SyncRound> log_rounds(int size) {
  int t = 1;
  while (t * 2 <= size) t *= 2;
  std::vector<SyncRound> rounds;
  for (int half = 1; half < t; half *= 2) {
    SyncRound round;
    for (int client = 0; client < t; client += 2 * half) round.push_back({client, client + half});
    rounds.push_back(std::move(round));
  }
  if (size > t) {
    SyncRound round;
    for (int server = t; server < size; ++server) round.push_back({server - t, server});
    rounds.push_back(std::move(round));
  }
  return rounds;
}

std::vector<SyncRound> linear_rounds(int size) {
  std::vector<SyncRound> rounds;
  for (int server = 1; server < size; ++server) rounds.push_back({{0, server}});
  return rounds;
}

}  // namespace

std::string_view to_string(SyncScheme scheme) {
  return scheme == SyncScheme::log ? "log" : "linear";
}

SyncSchedule SyncSchedule::make(SyncScheme scheme, int size) {
  if (size < 1) throw std::invalid_argument("SyncSchedule needs at least one rank");
  SyncSchedule s;
  s.rounds = scheme == SyncScheme::log ? log_rounds(size) : linear_rounds(size);
  s.parent.assign(static_cast<std::size_t>(size), -1);
  for (const SyncRound& round : s.rounds) {
    for (const SyncPair& pair : round)
      s.parent[static_cast<std::size_t>(pair.server)] = pair.client;
  }
  return s;
}

std::vector<SyncRound> split_into_waves(const SyncRound& round, const std::vector<int>& node_of,
                                        const std::vector<int>& cores) {
  for (int node : node_of) {
    if (node < 0 || static_cast<std::size_t>(node) >= cores.size()) {
      throw std::invalid_argument("split_into_waves: node index without a core count");
    }
  }
  std::vector<SyncRound> waves;
  std::vector<std::vector<int>> busy;  // busy[wave][node]
  for (const SyncPair& pair : round) {
    const auto a = static_cast<std::size_t>(node_of.at(static_cast<std::size_t>(pair.client)));
    const auto b = static_cast<std::size_t>(node_of.at(static_cast<std::size_t>(pair.server)));
    auto fits = [&](const std::vector<int>& load) {
      if (a == b) return load[a] + 2 <= cores.at(a);
      return load[a] + 1 <= cores.at(a) && load[b] + 1 <= cores.at(b);
    };
    std::size_t w = 0;
    while (w < waves.size() && !fits(busy[w])) ++w;
    if (w == waves.size()) {
      waves.emplace_back();
      busy.emplace_back(cores.size(), 0);
    }
    waves[w].push_back(pair);
    ++busy[w][a];
    ++busy[w][b];
  }
  return waves;
}

}  // namespace overlap::clock
