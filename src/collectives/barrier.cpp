// Barrier: dissemination (Hensgen, Finkel, Manber). In round k every rank sends a zero-byte
// message to rank + 2^k and receives one from rank - 2^k; after ceil(log2 P) rounds each
// rank has heard, directly or through others, from every rank. Works for any P and needs
// no extra rounds for non-powers of two, unlike a recursive-doubling barrier.
//
// Round k's send waits for the receives of all earlier rounds: that is what passes on the
// news of every rank heard from so far (waiting for round k - 1 alone would let a rank
// finish before some other rank arrived). All receives are posted at once, so no send
// ever waits for its receive to be posted.
#include "collectives/algorithms.hpp"
#include "collectives/schedule.hpp"

namespace overlap::collectives {

void build_ibarrier(TaskGraph& g, Group grp) {
  if (grp.size == 1) return;
  Schedule s(g);
  // Zero-byte messages still need a valid address; nothing is ever written to it.
  const Buf token = s.scratch(0);
  const int rounds = ceil_log2(grp.size);
  Deps heard;
  for (int k = 0; k < rounds; ++k) {
    const int dist = 1 << k;
    s.send(token, 0, wrap(grp.rank + dist, grp.size), k, heard);
    heard.push_back(s.recv(token, 0, wrap(grp.rank - dist, grp.size), k));
  }
}

}  // namespace overlap::collectives
