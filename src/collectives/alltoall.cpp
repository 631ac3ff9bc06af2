// Alltoall: pairwise exchange. In step k (1 .. P-1) a rank sends its block for rank + k
// and receives the block from rank - k, so every step pairs all ranks without contention
// for any P. Step k waits for step k - W to finish, which bounds the messages in flight
// to W per direction: W = 32 for blocks below 32 KiB (latency-bound, keep many going),
// W = 4 from there on (bandwidth-bound; more would only congest).
// Every ordered pair of ranks exchanges exactly one message, so one tag serves all.
// In place, the blocks to send are copied to scratch first: the receives overwrite them.
#include <vector>

#include "collectives/algorithms.hpp"
#include "collectives/schedule.hpp"

namespace overlap::collectives {
namespace {

constexpr std::size_t kLargeBlockBytes = 32 * 1024;
constexpr int kSmallWindow = 32;
constexpr int kLargeWindow = 4;

}  // namespace

void build_ialltoall(TaskGraph& g, const void* send, void* recv, std::size_t block_bytes,
                     Group grp) {
  if (block_bytes == 0) return;
  Schedule s(g);
  const int p = grp.size;
  const int r = grp.rank;
  const auto at = [block_bytes](int block) {
    return static_cast<std::size_t>(block) * block_bytes;
  };
  auto* out = static_cast<std::byte*>(recv);
  const auto* in = static_cast<const std::byte*>(send);
  Buf src = in;  // where the blocks to send are
  Deps start;    // what every step waits for: in place, the copy of the outgoing blocks
  if (in != nullptr) {
    s.copy(in + at(r), out + at(r), block_bytes);
  } else if (p > 1) {
    const Buf tmp = s.scratch(at(p));
    start = {s.copy(out, tmp, at(p))};
    src = tmp;
  }
  const int window = block_bytes < kLargeBlockBytes ? kSmallWindow : kLargeWindow;
  std::vector<Deps> steps(static_cast<std::size_t>(p));
  for (int k = 1; k < p; ++k) {
    Deps after = start;
    if (k > window) {
      const auto& old = steps[static_cast<std::size_t>(k - window)];
      after.insert(after.end(), old.begin(), old.end());
    }
    const int to = wrap(r + k, p);
    const int from = wrap(r - k, p);
    steps[static_cast<std::size_t>(k)] = {s.recv(out + at(from), block_bytes, from, 0, after),
                                          s.send(src + at(to), block_bytes, to, 0, after)};
  }
}

}  // namespace overlap::collectives
