#include "collectives/algorithm_choice.hpp"

#include <array>
#include <cstdlib>
#include <utility>

#include "collectives/schedule.hpp"

namespace overlap::collectives {
namespace {

template <class E>
using Names = std::initializer_list<std::pair<std::string_view, E>>;

const Names<AllreduceAlgorithm> kAllreduce = {
    {"recursive_doubling", AllreduceAlgorithm::recursive_doubling},
    {"rabenseifner", AllreduceAlgorithm::rabenseifner},
    {"ring", AllreduceAlgorithm::ring}};
const Names<BcastAlgorithm> kBcast = {{"binomial", BcastAlgorithm::binomial},
                                      {"scatter_allgather", BcastAlgorithm::scatter_allgather}};
const Names<ReduceAlgorithm> kReduce = {
    {"binomial", ReduceAlgorithm::binomial},
    {"reduce_scatter_gather", ReduceAlgorithm::reduce_scatter_gather}};
const Names<AllgatherAlgorithm> kAllgather = {{"bruck", AllgatherAlgorithm::bruck},
                                              {"ring", AllgatherAlgorithm::ring}};
const Names<ReduceScatterAlgorithm> kReduceScatter = {
    {"recursive_halving", ReduceScatterAlgorithm::recursive_halving},
    {"ring", ReduceScatterAlgorithm::ring}};
const Names<RootedAlgorithm> kRooted = {{"binomial", RootedAlgorithm::binomial},
                                        {"linear", RootedAlgorithm::linear}};
const Names<AlltoallAlgorithm> kAlltoall = {{"pairwise", AlltoallAlgorithm::pairwise},
                                            {"bruck", AlltoallAlgorithm::bruck}};

template <class E>
const char* name_of(const Names<E>& names, E e) {
  for (const auto& [n, v] : names)
    if (v == e) return n.data();
  return "unknown";
}

template <class E>
std::string allowed(const Names<E>& names) {
  std::string s;
  for (const auto& [n, v] : names) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

// Sets `slot` from `value`; false with `error` when `value` is not one of `names`.
template <class E>
bool set(std::optional<E>& slot, const Names<E>& names, std::string_view op, std::string_view value,
         std::string& error) {
  for (const auto& [n, v] : names) {
    if (n == value) {
      slot = v;
      return true;
    }
  }
  error = "OVERLAP_ALGORITHMS: '" + std::string(value) + "' is not an algorithm of " +
          std::string(op) + " (allowed: " + allowed(names) + ")";
  return false;
}

bool set_entry(ForcedAlgorithms& f, std::string_view op, std::string_view value,
               std::string& error) {
  if (op == "allreduce") return set(f.allreduce, kAllreduce, op, value, error);
  if (op == "bcast") return set(f.bcast, kBcast, op, value, error);
  if (op == "reduce") return set(f.reduce, kReduce, op, value, error);
  if (op == "allgather") return set(f.allgather, kAllgather, op, value, error);
  if (op == "reduce_scatter_block")
    return set(f.reduce_scatter_block, kReduceScatter, op, value, error);
  if (op == "gather") return set(f.gather, kRooted, op, value, error);
  if (op == "scatter") return set(f.scatter, kRooted, op, value, error);
  if (op == "alltoall") return set(f.alltoall, kAlltoall, op, value, error);
  if (op == "barrier" && value == "dissemination") return true;  // its one algorithm
  error = "OVERLAP_ALGORITHMS: '" + std::string(op) + "=" + std::string(value) +
          "' names no algorithm (collectives: allreduce, bcast, reduce, allgather, "
          "alltoall, reduce_scatter_block, gather, scatter; barrier=dissemination is its "
          "only one)";
  return false;
}

}  // namespace

ForcedParse parse_forced_algorithms(std::string_view text) {
  ForcedParse r;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view entry = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (entry.empty()) continue;
    const std::size_t eq = entry.find('=');
    if (eq == std::string_view::npos) {
      r.error = "OVERLAP_ALGORITHMS: '" + std::string(entry) +
                "' is not COLLECTIVE=ALGORITHM (e.g. allreduce=ring)";
      return r;
    }
    if (!set_entry(r.forced, entry.substr(0, eq), entry.substr(eq + 1), r.error)) return r;
  }
  return r;
}

const ForcedParse& forced_algorithms() {
  static const ForcedParse parsed = [] {
    const char* text = std::getenv("OVERLAP_ALGORITHMS");
    return parse_forced_algorithms(text == nullptr ? "" : text);
  }();
  return parsed;
}

AllreduceAlgorithm allreduce_algorithm(std::size_t bytes, std::size_t count, int p,
                                       const Choice& c) {
  const auto pof2 = static_cast<std::size_t>(floor_pow2(p));
  if (c.forced.allreduce) {
    const bool defined =
        *c.forced.allreduce == AllreduceAlgorithm::recursive_doubling ||
        (*c.forced.allreduce == AllreduceAlgorithm::rabenseifner && count >= pof2) ||
        (*c.forced.allreduce == AllreduceAlgorithm::ring && count >= static_cast<std::size_t>(p));
    if (defined) return *c.forced.allreduce;
  }
  return choose_allreduce(bytes, count, p, c.latency_bytes);
}

BcastAlgorithm bcast_algorithm(std::size_t bytes, int p, const Choice& c) {
  return c.forced.bcast.value_or(choose_bcast(bytes, p, c.latency_bytes));
}

ReduceAlgorithm reduce_algorithm(std::size_t bytes, std::size_t count, int p, const Choice& c) {
  if (c.forced.reduce &&
      (*c.forced.reduce == ReduceAlgorithm::binomial || count >= static_cast<std::size_t>(p)))
    return *c.forced.reduce;
  return choose_reduce(bytes, count, p, c.latency_bytes);
}

AllgatherAlgorithm allgather_algorithm(std::size_t block, int p, const Choice& c) {
  return c.forced.allgather.value_or(choose_allgather(block, p, c.latency_bytes));
}

ReduceScatterAlgorithm reduce_scatter_block_algorithm(std::size_t block, int p, const Choice& c) {
  return c.forced.reduce_scatter_block.value_or(
      choose_reduce_scatter_block(block, p, c.latency_bytes));
}

RootedAlgorithm gather_algorithm(std::size_t block, int p, const Choice& c) {
  return c.forced.gather.value_or(choose_gather(block, p, c.latency_bytes));
}

RootedAlgorithm scatter_algorithm(std::size_t block, int p, const Choice& c) {
  return c.forced.scatter.value_or(choose_scatter(block, p, c.latency_bytes));
}

AlltoallAlgorithm alltoall_algorithm(std::size_t block, int p, const Choice& c) {
  return c.forced.alltoall.value_or(choose_alltoall(block, p, c.latency_bytes));
}

const char* algorithm_name(std::string_view op, std::size_t bytes, std::size_t count, int p,
                           const Choice& c) {
  constexpr std::array<std::string_view, 9> kOps = {
      "bcast",    "reduce", "allreduce", "allgather",
      "alltoall", "gather", "scatter",   "reduce_scatter_block",
      "barrier"};
  bool known = false;
  for (std::string_view o : kOps) known = known || o == op;
  if (!known) return nullptr;
  if (op == "barrier") return p <= 1 ? "local" : "dissemination";
  if (bytes == 0) return "none";
  if (p <= 1) return "local";
  if (op == "allreduce") return name_of(kAllreduce, allreduce_algorithm(bytes, count, p, c));
  if (op == "bcast") return name_of(kBcast, bcast_algorithm(bytes, p, c));
  if (op == "reduce") return name_of(kReduce, reduce_algorithm(bytes, count, p, c));
  if (op == "allgather") return name_of(kAllgather, allgather_algorithm(bytes, p, c));
  if (op == "reduce_scatter_block")
    return name_of(kReduceScatter, reduce_scatter_block_algorithm(bytes, p, c));
  if (op == "gather") return name_of(kRooted, gather_algorithm(bytes, p, c));
  if (op == "scatter") return name_of(kRooted, scatter_algorithm(bytes, p, c));
  return name_of(kAlltoall, alltoall_algorithm(bytes, p, c));
}

}  // namespace overlap::collectives
