#include "partitioned/partition_layout.hpp"

#include <gtest/gtest.h>

#include <numeric>

#include "partitioned/wire_tags.hpp"

namespace overlap::partitioned {
namespace {

TEST(Aggregation, ParsesTheAllowedForms) {
  std::string error;
  EXPECT_EQ(parse_aggregation("none", error).kind, Aggregation::none);
  const auto c = parse_aggregation("count:4", error);
  EXPECT_EQ(c.kind, Aggregation::by_count);
  EXPECT_EQ(c.value, 4u);
  const auto b = parse_aggregation("bytes:64k", error);
  EXPECT_EQ(b.kind, Aggregation::by_bytes);
  EXPECT_EQ(b.value, 65536u);
  const auto a = parse_aggregation("adaptive", error);
  EXPECT_EQ(a.kind, Aggregation::adaptive);
  EXPECT_EQ(a.value, 0u);
  const auto am = parse_aggregation("adaptive:2M", error);
  EXPECT_EQ(am.kind, Aggregation::adaptive);
  EXPECT_EQ(am.value, 2u * 1024 * 1024);
  EXPECT_EQ(aggregation_name(a), "adaptive");
  EXPECT_EQ(aggregation_name(am), "adaptive:2097152");
  EXPECT_TRUE(error.empty());
  for (const char* bad :
       {"", "count", "count:0", "count:-1", "bytes:1x", "bytes:k", "adaptive:", "adaptive:0",
        "adaptive:-5", "adaptive:4x", "adaptive4", "Adaptive", "adaptive:k"}) {
    std::string e;
    parse_aggregation(bad, e);
    EXPECT_NE(e.find(std::string("'") + bad + "'"), std::string::npos) << bad;
  }
}

TEST(Aggregation, GroupsPartitions) {
  EXPECT_EQ(partitions_per_chunk({Aggregation::none, 0}, 100), 1u);
  EXPECT_EQ(partitions_per_chunk({Aggregation::by_count, 3}, 100), 3u);
  EXPECT_EQ(partitions_per_chunk({Aggregation::by_bytes, 250}, 100), 3u);  // at least 250 bytes
  EXPECT_EQ(partitions_per_chunk({Aggregation::by_bytes, 50}, 100), 1u);
  // Zero-byte partitions: one message for all of them, never more groups than partitions.
  const ChunkLayout l = make_layout(62, 0, {Aggregation::by_bytes, 100});
  EXPECT_EQ(l.group, 62u);
  EXPECT_EQ(l.chunks(), 1u);
  // Adaptive: the receiver tracks every sender partition (group 1), whatever the bytes.
  const ChunkLayout ad = make_layout(62, 0, {Aggregation::adaptive, 100});
  EXPECT_TRUE(ad.adaptive);
  EXPECT_EQ(ad.group, 1u);
  EXPECT_EQ(ad.chunks(), 62u);
  EXPECT_FALSE(l.adaptive);
}

TEST(ChunkLayout, ChunksCoverTheBufferOnce) {
  for (std::uint32_t parts : {1u, 7u, 64u}) {
    for (std::uint32_t group : {1u, 3u, 64u}) {
      const ChunkLayout l = make_layout(parts, 12, {Aggregation::by_count, group});
      std::uint64_t next = 0;
      std::uint32_t partitions = 0;
      for (std::uint32_t c = 0; c < l.chunks(); ++c) {
        EXPECT_EQ(l.offset(c), next);
        next += l.bytes(c);
        partitions += l.partitions_in(c);
        for (std::uint32_t p = l.first_partition(c); p < l.first_partition(c) + l.partitions_in(c);
             ++p)
          EXPECT_EQ(l.chunk_of(p), c);
      }
      EXPECT_EQ(next, l.total_bytes());
      EXPECT_EQ(partitions, parts);
    }
  }
}

// A receiver partition waits for exactly the chunks that overlap its bytes.
TEST(ChunkLayout, ReceiverPartitionsWaitForOverlappingChunks) {
  for (std::uint32_t send : {1u, 3u, 8u, 64u}) {
    for (std::uint32_t recv : {1u, 2u, 5u, 64u}) {
      const std::uint64_t total = std::lcm(std::uint64_t{send}, std::uint64_t{recv}) * 3;
      for (std::uint32_t group : {1u, 2u}) {
        const ChunkLayout l = make_layout(send, total / send, {Aggregation::by_count, group});
        const std::uint64_t per = total / recv;
        for (std::uint32_t p = 0; p < recv; ++p) {
          const ChunkRange r = chunks_for_receiver_partition(l, recv, p);
          for (std::uint32_t c = 0; c < l.chunks(); ++c) {
            const bool overlaps = l.offset(c) < per * (p + 1) && per * p < l.offset(c) + l.bytes(c);
            EXPECT_EQ(overlaps, c >= r.first && c <= r.last)
                << send << " " << recv << " " << group << " p=" << p << " c=" << c;
          }
        }
      }
    }
  }
  const ChunkLayout empty = make_layout(4, 0, {});
  const ChunkRange all = chunks_for_receiver_partition(empty, 2, 1);
  EXPECT_EQ(all.first, 0u);
  EXPECT_EQ(all.last, 3u);
}

TEST(WireTags, StayInsideTheUpperHalfAndDoNotOverlap) {
  for (int ub : {32767, (1 << 23) - 1, (1 << 28) - 1, 2147483647}) {
    const WireTags t = wire_tags(ub);
    EXPECT_GT(t.base, ub / 2);
    EXPECT_GE(t.user_tag_limit, 1024);
    EXPECT_EQ(t.handshake(t.user_tag_limit - 1) + 1, t.data_base);
    EXPECT_GE(t.max_chunks, 64u);
    EXPECT_GE(t.channels, 32u);
    const long long last =
        static_cast<long long>(t.data_base) + static_cast<long long>(t.channels) * t.max_chunks - 1;
    EXPECT_LE(last, ub);
    EXPECT_EQ(t.data(t.channels - 1, t.max_chunks - 1), last);
    // Adaptive's two tags are its channel's first two, whatever the partition count.
    EXPECT_GE(t.max_chunks, 2u);
    for (std::uint32_t c : {0u, t.channels - 1}) {
      EXPECT_EQ(t.adaptive_descriptor(c), t.data(c, 0));
      EXPECT_EQ(t.adaptive_data(c), t.data(c, 1));
    }
  }
}

}  // namespace
}  // namespace overlap::partitioned
