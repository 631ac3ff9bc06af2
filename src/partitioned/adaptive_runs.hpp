// The `adaptive` aggregation policy's pure parts (no MPI): which partitions an adaptive
// sender puts into which message, and the descriptor that tells the receiver.
//
// Adaptive groups by what happens to be ready: each Pready pushes its partition onto a
// ReadyQueue and then tries to become the request's poster; the poster takes everything
// queued (its own partition and whatever other threads readied meanwhile), cuts it into
// maximal runs of consecutive partitions (group_runs, each at most the policy's bytes) and
// posts them. A Pready that finds another thread posting leaves its partition to that
// thread, which looks at the queue again before it stops. So nothing waits for a partner
// (a partition readied alone leaves alone, as under `none`), and partitions readied in a
// burst, while a post is under way, leave together.
//
// The receiver cannot pre-post receives for groupings decided at Pready time, so before
// each batch of runs the sender sends a descriptor (first partition and count of each run,
// at most kRunsPerDescriptor) on the request's descriptor tag, then the runs' data, in the
// descriptor's order, on its data tag. Both tags are fixed per request (wire_tags.hpp), so
// MPI's non-overtaking order on one (source, tag, communicator) keeps descriptors and
// data of successive batches and epochs in order however far the sender runs ahead; the
// receiver posts each run's receive straight into place as soon as its descriptor is in.
// Costs and when it wins: docs/liboverlap.md, "Partitioned point-to-point".
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace overlap::partitioned {

// A message of the adaptive policy: sender partitions [first, first + count).
struct Run {
  std::uint32_t first = 0;
  std::uint32_t count = 0;
  bool operator==(const Run&) const = default;
};

// Runs per descriptor message (8 bytes each: small enough for every MPI's eager path).
inline constexpr std::uint32_t kRunsPerDescriptor = 128;

// Cuts `ready` (partition indices, ascending, distinct) into maximal runs of consecutive
// partitions, each of at most `max_bytes` bytes (and one partition at least).
std::vector<Run> group_runs(std::span<const std::uint32_t> ready, std::uint64_t partition_bytes,
                            std::uint64_t max_bytes);

// A received descriptor's runs, checked against `partitions` sender partitions of
// `partition_bytes` each, of which `claimed` (one flag each) already came in earlier
// descriptors of the epoch; marks the new ones claimed. On a bad descriptor (not whole
// runs; empty, out-of-range, overlapping or over-INT_MAX-byte runs) returns false with
// `error` naming what is wrong.
bool accept_descriptor(std::span<const std::uint32_t> words, std::uint32_t partitions,
                       std::uint64_t partition_bytes, std::vector<std::uint8_t>& claimed,
                       std::vector<Run>& runs, std::string& error);

// Partitions readied and not yet taken by a poster, for one epoch: each partition is
// pushed at most once per epoch, from any thread, without a lock; one thread at a time
// takes them all (a stack whose nodes are the partitions themselves).
class ReadyQueue {
 public:
  explicit ReadyQueue(std::uint32_t partitions);
  // Between epochs only (no push or take running).
  void reset();
  void push(std::uint32_t partition);
  // Appends everything pushed and not yet taken to `out`, in no particular order.
  void take(std::vector<std::uint32_t>& out);
  bool empty() const;

 private:
  static constexpr std::uint32_t kEmpty = UINT32_MAX;
  std::unique_ptr<std::atomic<std::uint32_t>[]> next_;
  std::atomic<std::uint32_t> head_{kEmpty};
};

// An adaptive sender's epoch: Pready queues (push), then posts what is queued
// (post_queued), unless another thread is posting, which then posts it too.
class AdaptiveBatcher {
 public:
  // Runs of at most `max_bytes` (0: no bound but INT_MAX) of `partition_bytes` partitions.
  AdaptiveBatcher(std::uint32_t partitions, std::uint64_t partition_bytes, std::uint64_t max_bytes);
  // Between epochs only (no push running; a post_queued may still be finishing).
  void reset() { queue_.reset(); }
  void push(std::uint32_t partition) { queue_.push(partition); }
  // Calls `post` with the runs of each batch it takes, at most kRunsPerDescriptor at a
  // time, one thread at a time; returns at once when another thread is posting. Every
  // partition pushed before a call is posted by the time the last running call returns.
  void post_queued(const std::function<void(std::span<const Run>)>& post);

 private:
  ReadyQueue queue_;
  std::uint64_t partition_bytes_;
  std::uint64_t max_bytes_;
  std::atomic<bool> posting_{false};
  std::vector<std::uint32_t> batch_;  // the posting thread's
};

}  // namespace overlap::partitioned
