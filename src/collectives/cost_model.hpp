// Which algorithm a collective uses, from a latency-bandwidth (Hockney) model that every
// rank evaluates on arguments all ranks agree on (bytes, P), so all ranks choose alike.
//
// A message of n bytes costs a + n: times are in units of "one byte on the wire", and the
// per-message latency `a` is the number of bytes a link moves meanwhile (latency times
// bandwidth; cost_params.hpp measures it and makes every rank agree on it). The default,
// kLatencyBytes = 64 KiB (about 6 us at 10 GB/s, 50 us at 1 GB/s) the model reproduces, at P = 4,
// the thresholds the algorithms were first given by hand (recursive doubling up to 256 KiB, ring
// allgather from 128 KiB in total; the scatter + allgather broadcast now from above 128 KiB, not
// 512: a binomial root sends the whole message to each of its children); at large P it keeps
// the ring algorithms, whose P - 1 steps each pay a latency, for blocks large enough to amortise
// them (a ring allreduce of 256 KiB at P = 1024 would move 256-byte blocks in 2046 latency-bound
// steps: Rabenseifner's log2 P steps win). Pure functions; unit-tested in
// tests/collectives/cost_model_test.cpp.
#pragma once

#include <cstddef>

namespace overlap::collectives {

inline constexpr double kLatencyBytes = 64.0 * 1024;
// Local copies cost this fraction of a network byte (Bruck's two whole-buffer copies).
inline constexpr double kCopyWeight = 0.25;

enum class AllreduceAlgorithm { recursive_doubling, rabenseifner, ring };
enum class BcastAlgorithm { binomial, scatter_allgather };
enum class ReduceAlgorithm { binomial, reduce_scatter_gather };
enum class AllgatherAlgorithm { bruck, ring };
enum class ReduceScatterAlgorithm { recursive_halving, ring };
enum class RootedAlgorithm { binomial, linear };  // gather, scatter
enum class AlltoallAlgorithm { pairwise, bruck };

// `bytes` is the whole vector, `count` its elements; `a` the latency in bytes.
AllreduceAlgorithm choose_allreduce(std::size_t bytes, std::size_t count, int p,
                                    double a = kLatencyBytes);
BcastAlgorithm choose_bcast(std::size_t bytes, int p, double a = kLatencyBytes);
ReduceAlgorithm choose_reduce(std::size_t bytes, std::size_t count, int p,
                              double a = kLatencyBytes);
// `block` is one rank's block.
AllgatherAlgorithm choose_allgather(std::size_t block, int p, double a = kLatencyBytes);
ReduceScatterAlgorithm choose_reduce_scatter_block(std::size_t block, int p,
                                                   double a = kLatencyBytes);
RootedAlgorithm choose_gather(std::size_t block, int p, double a = kLatencyBytes);
RootedAlgorithm choose_scatter(std::size_t block, int p, double a = kLatencyBytes);
AlltoallAlgorithm choose_alltoall(std::size_t block, int p, double a = kLatencyBytes);

// Steps of a pairwise alltoall in flight at once: many for small blocks (latency-bound),
// few for large ones (more would only congest).
int alltoall_window(std::size_t block);

// Segments of a pipelined binomial broadcast (P > 2): about 64 KiB each.
std::size_t bcast_segments(std::size_t bytes, int p);

}  // namespace overlap::collectives
