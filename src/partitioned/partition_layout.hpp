// How a partitioned transfer travels: the sender's partitions grouped into wire messages
// ("chunks") by the aggregation policy, and which chunks a receiver partition waits for
// when the two sides cut the buffer into different numbers of partitions. Pure code (no
// MPI): both sides compute the same chunks from what the sender's handshake says.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace overlap::partitioned {

// What the user chose (MPI_Info key "overlap_aggregation", else the environment variable
// OVERLAP_PART_AGGREGATION, else none). Costs: docs/liboverlap.md, "Partitioned".
enum class Aggregation : std::uint8_t {
  none,      // one message per partition: each leaves the moment it is ready
  by_count,  // `value` consecutive partitions per message: leaves when all of them are ready
  by_bytes,  // as many consecutive partitions as make at least `value` bytes
  adaptive,  // what is ready and unsent when a Pready posts: runs of consecutive partitions,
             // each at most `value` bytes (0: no bound but INT_MAX), announced by a
             // descriptor message (adaptive_runs.hpp)
};

struct AggregationPolicy {
  Aggregation kind = Aggregation::none;
  std::uint64_t value = 0;  // partitions (by_count), bytes (by_bytes), max bytes (adaptive)
};

// "none", "count:K" (K >= 1), "bytes:N" (N >= 1, with an optional k/K/M/G suffix),
// "adaptive" or "adaptive:N" (N as for bytes).
// On a bad text, `error` names it and what is allowed.
AggregationPolicy parse_aggregation(const std::string& text, std::string& error);
std::string aggregation_name(const AggregationPolicy& policy);

// Partitions per chunk for `partition_bytes`-byte partitions (>= 1; 1 for adaptive, whose
// messages are not fixed chunks).
std::uint32_t partitions_per_chunk(const AggregationPolicy& policy, std::uint64_t partition_bytes);

// The wire layout both sides agree on: `partitions` sender partitions of `partition_bytes`
// bytes each, grouped `group` at a time (the last chunk may hold fewer). Adaptive: group 1
// (the receiver tracks arrival per sender partition) and the messages are runs the sender
// chose at Pready time (adaptive_runs.hpp).
struct ChunkLayout {
  std::uint32_t partitions = 1;
  std::uint64_t partition_bytes = 0;
  std::uint32_t group = 1;
  bool adaptive = false;

  std::uint32_t chunks() const {
    return static_cast<std::uint32_t>((std::uint64_t{partitions} + group - 1) / group);
  }
  std::uint32_t chunk_of(std::uint32_t partition) const { return partition / group; }
  std::uint32_t first_partition(std::uint32_t chunk) const { return chunk * group; }
  // Sender partitions in chunk `c`.
  std::uint32_t partitions_in(std::uint32_t c) const;
  std::uint64_t offset(std::uint32_t c) const {
    return std::uint64_t{first_partition(c)} * partition_bytes;
  }
  std::uint64_t bytes(std::uint32_t c) const {
    return std::uint64_t{partitions_in(c)} * partition_bytes;
  }
  std::uint64_t total_bytes() const { return std::uint64_t{partitions} * partition_bytes; }
};

// The layout of `partitions` partitions of `partition_bytes` under `policy` (a group never
// exceeds the partitions there are).
ChunkLayout make_layout(std::uint32_t partitions, std::uint64_t partition_bytes,
                        const AggregationPolicy& policy);

// The chunks receiver partition `p` (of `partitions` equal ones over the same total) waits
// for: [first, last]. A zero-byte buffer waits for every chunk (each is a message, and
// "arrived" must still mean "the sender's epoch reached us").
struct ChunkRange {
  std::uint32_t first = 0;
  std::uint32_t last = 0;
};
ChunkRange chunks_for_receiver_partition(const ChunkLayout& layout, std::uint32_t partitions,
                                         std::uint32_t p);

}  // namespace overlap::partitioned
