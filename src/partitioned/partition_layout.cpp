#include "partitioned/partition_layout.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace overlap::partitioned {
namespace {

bool parse_positive(const std::string& text, bool allow_suffix, std::uint64_t& out) {
  if (text.empty() || text[0] < '0' || text[0] > '9') return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || v == 0) return false;
  std::uint64_t scale = 1;
  const std::string rest(end);
  if (!rest.empty()) {
    if (!allow_suffix || rest.size() != 1) return false;
    switch (rest[0]) {
      case 'k':
      case 'K':
        scale = 1024;
        break;
      case 'M':
        scale = 1024 * 1024;
        break;
      case 'G':
        scale = 1024ULL * 1024 * 1024;
        break;
      default:
        return false;
    }
  }
  if (v > UINT64_MAX / scale) return false;
  out = v * scale;
  return true;
}

}  // namespace

AggregationPolicy parse_aggregation(const std::string& text, std::string& error) {
  AggregationPolicy p;
  if (text == "none") return p;
  const auto colon = text.find(':');
  const std::string head = text.substr(0, colon);
  const std::string arg = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (head == "count" && parse_positive(arg, false, p.value) && p.value <= UINT32_MAX) {
    p.kind = Aggregation::by_count;
    return p;
  }
  if (head == "bytes" && parse_positive(arg, true, p.value)) {
    p.kind = Aggregation::by_bytes;
    return p;
  }
  if (text == "adaptive" || (head == "adaptive" && parse_positive(arg, true, p.value))) {
    p.kind = Aggregation::adaptive;
    return p;
  }
  error = "aggregation '" + text +
          "' is not allowed (allowed: none, count:K with K >= 1, bytes:N with N >= 1 and an "
          "optional k, M or G suffix, adaptive, adaptive:N with N as for bytes)";
  return {};
}

std::string aggregation_name(const AggregationPolicy& policy) {
  switch (policy.kind) {
    case Aggregation::none:
      return "none";
    case Aggregation::by_count:
      return "count:" + std::to_string(policy.value);
    case Aggregation::by_bytes:
      return "bytes:" + std::to_string(policy.value);
    case Aggregation::adaptive:
      return policy.value == 0 ? "adaptive" : "adaptive:" + std::to_string(policy.value);
  }
  return "none";
}

std::uint32_t partitions_per_chunk(const AggregationPolicy& policy, std::uint64_t partition_bytes) {
  std::uint64_t k = 1;
  switch (policy.kind) {
    case Aggregation::none:
    case Aggregation::adaptive:
      break;
    case Aggregation::by_count:
      k = policy.value;
      break;
    case Aggregation::by_bytes:
      // Zero-byte partitions never reach a byte threshold: one message carries them all.
      k = partition_bytes == 0 ? UINT32_MAX
                               : (policy.value + partition_bytes - 1) / partition_bytes;
      break;
  }
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(k, 1, UINT32_MAX));
}

std::uint32_t ChunkLayout::partitions_in(std::uint32_t c) const {
  const std::uint32_t first = first_partition(c);
  return std::min(group, partitions - first);
}

ChunkLayout make_layout(std::uint32_t partitions, std::uint64_t partition_bytes,
                        const AggregationPolicy& policy) {
  const std::uint32_t group = std::min(partitions_per_chunk(policy, partition_bytes), partitions);
  return ChunkLayout{partitions, partition_bytes, std::max<std::uint32_t>(group, 1),
                     policy.kind == Aggregation::adaptive};
}

ChunkRange chunks_for_receiver_partition(const ChunkLayout& layout, std::uint32_t partitions,
                                         std::uint32_t p) {
  const std::uint64_t total = layout.total_bytes();
  if (total == 0) return {0, layout.chunks() - 1};
  const std::uint64_t per = total / partitions;  // the totals match, so this divides exactly
  const std::uint64_t begin = per * p;
  const std::uint64_t end = begin + per;  // exclusive, > begin
  const std::uint64_t chunk_bytes = std::uint64_t{layout.group} * layout.partition_bytes;
  return {static_cast<std::uint32_t>(begin / chunk_bytes),
          static_cast<std::uint32_t>((end - 1) / chunk_bytes)};
}

}  // namespace overlap::partitioned
