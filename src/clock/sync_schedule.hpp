// Which pairs of ranks synchronise in which round. A schedule is pure data, so the same
// schedule drives the MPI implementation and the simulated clocks of the unit tests.
//
// log:    the clock-sync paper's scheme (sec. 3.2). t = largest power of two <= P; ranks
//         0..t-1 form a binomial tree in log2(t) rounds (in round k, client c with
//         c mod 2^k == 0 syncs with server c + 2^(k-1)); then every r >= t syncs with
//         r - t in one more round. ceil(log2 P) rounds for any P.
// linear: rank 0 with each other rank in turn: P - 1 rounds.
// Every rank except 0 is the server of exactly one pair; its client is its parent, so
// the schedule is also the tree along which offsets compose to rank 0.
#pragma once

#include <string_view>
#include <vector>

namespace overlap::clock {

enum class SyncScheme { log, linear };

std::string_view to_string(SyncScheme scheme);

struct SyncPair {
  int client = 0;
  int server = 0;
};

using SyncRound = std::vector<SyncPair>;

struct SyncSchedule {
  std::vector<SyncRound> rounds;
  std::vector<int> parent;  // parent[r] = client r syncs with; parent[0] = -1

  static SyncSchedule make(SyncScheme scheme, int size);
};

// Splits a round into waves run one after another, so that no node has more ranks busy
// in ping-pongs at once than it has cores (node_of[rank], cores[node]). Pairs within a
// round are independent, so this costs time but no accuracy; on an oversubscribed node
// concurrent pairs would measure each other's scheduling delays instead of the clocks.
// A pair that does not fit even alone (two ranks on a one-core node) runs without other
// pairs of that node; pairs of other nodes may share its wave.
std::vector<SyncRound> split_into_waves(const SyncRound& round, const std::vector<int>& node_of,
                                        const std::vector<int>& cores);

}  // namespace overlap::clock
