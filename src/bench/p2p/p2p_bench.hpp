// `overlap-bench p2p`: the ping-pong with computation of the transparent-overlap paper
// (Lescouet et al., HPCC 2020, sec. IV-C). Rank 0: send; compute; write one byte of the
// buffer; receive; compute; read one byte. Rank 1 the mirror (receive first). The touch
// after each computation is the program's next use of the buffer: the latest point a
// deferred transfer must be complete. Implementations: the blocking calls as written
// (plain, or under overlap-run: the bench detects liboverlap-intercept.so and records the
// points as `overlap-run`), Isend/Irecv + compute + Wait, the hand-written ideal, with
// MPI's own progress (`nonblocking`) or with liboverlap's engine driving MPI during the
// computation (`nonblocking-liboverlap`: OVX_Progress_begin/_end, policy --progress).
// Per (size, computation time): MPI's own round trip (t_comm), the two computation
// periods alone (t_comp, calibrated to the time asked for), each implementation's round
// trip with and without computation, all from the sync barrier in global time; then the
// paper's optimum max(t_comp, t_comm), the overlap ratio and the speedup over blocking,
// and from the round trip without computation the latency (half of it) and bandwidth.
// Before its timed round trips each implementation makes one on known bytes, and both
// ranks check every byte they received (a point that fails is invalid, with the first
// difference). Ranks 0 and 1 ping-pong; further ranks only join the barriers. Prints
// nothing.
#pragma once

#include "bench/common/benchmark.hpp"
#include "bench/p2p/p2p_record.hpp"

namespace overlap::bench {

const Benchmark<P2pConfig, P2pPoint>& p2p_benchmark();

}  // namespace overlap::bench
