// `overlap-bench p2p`: the ping-pong with computation of the transparent-overlap paper
// (Lescouet et al., HPCC 2020, sec. IV-C). Rank 0: send; compute; write one byte of the
// buffer; receive; compute; read one byte. Rank 1 the mirror (receive first). The touch
// after each computation is the program's next use of the buffer: the latest point a
// deferred transfer must be complete. Implementations: the blocking calls as written
// (plain, or under overlap-run: the bench detects liboverlap-intercept.so and records the
// points as `overlap-run`), and Isend/Irecv + compute + Wait, the hand-written ideal.
// Per (size, computation time): MPI's own round trip (t_comm), the two computation
// periods alone (t_comp, calibrated to the time asked for), each implementation's round
// trip with and without computation, all from the sync barrier in global time; then the
// paper's optimum max(t_comp, t_comm), the overlap ratio and the speedup over blocking.
// Ranks 0 and 1 ping-pong; further ranks only join the barriers. Prints nothing.
#pragma once

#include "bench/benchmark.hpp"
#include "bench/p2p_record.hpp"

namespace overlap::bench {

const Benchmark<P2pConfig, P2pPoint>& p2p_benchmark();

}  // namespace overlap::bench
