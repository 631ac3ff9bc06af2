#include "partitioned/adaptive_runs.hpp"

#include <algorithm>
#include <climits>

namespace overlap::partitioned {

std::vector<Run> group_runs(std::span<const std::uint32_t> ready, std::uint64_t partition_bytes,
                            std::uint64_t max_bytes) {
  // A run never exceeds INT_MAX bytes (MPI's count); one partition always fits (the
  // request's creation refused partitions beyond it).
  const std::uint64_t cap =
      std::min<std::uint64_t>(max_bytes == 0 ? UINT64_MAX : max_bytes, INT_MAX);
  const std::uint64_t per_run =
      partition_bytes == 0 ? UINT32_MAX : std::max<std::uint64_t>(cap / partition_bytes, 1);
  std::vector<Run> runs;
  for (const std::uint32_t p : ready) {
    if (!runs.empty() && runs.back().first + runs.back().count == p &&
        runs.back().count < per_run) {
      ++runs.back().count;
    } else {
      runs.push_back(Run{p, 1});
    }
  }
  return runs;
}

bool accept_descriptor(std::span<const std::uint32_t> words, std::uint32_t partitions,
                       std::uint64_t partition_bytes, std::vector<std::uint8_t>& claimed,
                       std::vector<Run>& runs, std::string& error) {
  runs.clear();
  if (words.empty() || words.size() % 2 != 0 || words.size() / 2 > kRunsPerDescriptor) {
    error = "a descriptor of " + std::to_string(words.size()) + " words is not a list of 1.." +
            std::to_string(kRunsPerDescriptor) + " runs";
    return false;
  }
  for (std::size_t i = 0; i < words.size(); i += 2) {
    const Run r{words[i], words[i + 1]};
    if (r.count == 0 || r.first >= partitions || r.count > partitions - r.first) {
      error = "run of " + std::to_string(r.count) + " partitions from partition " +
              std::to_string(r.first) + " is not inside the " + std::to_string(partitions) +
              " partitions";
      return false;
    }
    if (std::uint64_t{r.count} * partition_bytes > INT_MAX) {
      error = "run of " + std::to_string(r.count) + " partitions of " +
              std::to_string(partition_bytes) + " bytes exceeds " + std::to_string(INT_MAX) +
              " bytes";
      return false;
    }
    for (std::uint32_t p = r.first; p < r.first + r.count; ++p) {
      if (claimed[p] != 0) {
        error = "partition " + std::to_string(p) + " arrives twice in one epoch";
        return false;
      }
      claimed[p] = 1;
    }
    runs.push_back(r);
  }
  return true;
}

ReadyQueue::ReadyQueue(std::uint32_t partitions)
    : next_(std::make_unique<std::atomic<std::uint32_t>[]>(partitions)) {}

void ReadyQueue::reset() { head_.store(kEmpty, std::memory_order_seq_cst); }

void ReadyQueue::push(std::uint32_t partition) {
  std::uint32_t head = head_.load(std::memory_order_relaxed);
  do {
    next_[partition].store(head, std::memory_order_relaxed);
    // seq_cst: the poster's "queue empty?" check after it stops posting must see this
    // push when this thread found it posting (AdaptiveBatcher::post_queued).
  } while (!head_.compare_exchange_weak(head, partition, std::memory_order_seq_cst,
                                        std::memory_order_relaxed));
}

void ReadyQueue::take(std::vector<std::uint32_t>& out) {
  // Taking the whole stack at once leaves no ABA problem: nodes are only ever pushed.
  std::uint32_t p = head_.exchange(kEmpty, std::memory_order_seq_cst);
  while (p != kEmpty) {
    out.push_back(p);
    p = next_[p].load(std::memory_order_relaxed);
  }
}

bool ReadyQueue::empty() const { return head_.load(std::memory_order_seq_cst) == kEmpty; }

AdaptiveBatcher::AdaptiveBatcher(std::uint32_t partitions, std::uint64_t partition_bytes,
                                 std::uint64_t max_bytes)
    : queue_(partitions), partition_bytes_(partition_bytes), max_bytes_(max_bytes) {}

// Combining without a lost partition: the push before a caller's exchange and the exchange
// are seq_cst, as are the poster's store and its emptiness check after it. A caller that
// found posting_ set did so before the poster's store, so its push precedes the check,
// which then sees the queue non-empty (or another poster took it) and posts again.
void AdaptiveBatcher::post_queued(const std::function<void(std::span<const Run>)>& post) {
  while (!posting_.exchange(true, std::memory_order_seq_cst)) {
    batch_.clear();
    queue_.take(batch_);
    std::sort(batch_.begin(), batch_.end());
    const std::vector<Run> runs = group_runs(batch_, partition_bytes_, max_bytes_);
    for (std::size_t i = 0; i < runs.size(); i += kRunsPerDescriptor)
      post(std::span<const Run>(runs).subspan(
          i, std::min<std::size_t>(kRunsPerDescriptor, runs.size() - i)));
    posting_.store(false, std::memory_order_seq_cst);
    if (queue_.empty()) return;
  }
}

}  // namespace overlap::partitioned
