// The tags liboverlap's partitioned messages use on the application's communicator (the
// layer cannot duplicate it: MPI_Psend_init is a local call, and a duplicate is collective
// over the whole communicator). They take the upper half of the tag space [0, MPI_TAG_UB]:
//   handshake   base + user tag, user tag in [0, user_tag_limit): one per request, so
//               requests match in posting order by (rank, tag, communicator), as in MPI;
//   data        data_base + channel * max_chunks + chunk: the sender's channel (unique
//               among its live requests) and the chunk, so chunks that leave in any order
//               land in the right place. The adaptive policy uses two of its channel's
//               tags, whatever the partition count: chunk 0 for descriptors, chunk 1 for
//               the runs' data (adaptive_runs.hpp), so it always fits the tag space.
// The application's own point-to-point on such a communicator must use tags below `base`
// and no MPI_ANY_TAG receive from a peer while a partitioned transfer with it is under way
// (docs/liboverlap.md, "Partitioned": what differs from MPI).
#pragma once

#include <cstdint>

namespace overlap::partitioned {

struct WireTags {
  int base = 0;
  int user_tag_limit = 0;  // user tags allowed: [0, user_tag_limit)
  int data_base = 0;
  std::uint32_t max_chunks = 0;  // wire messages per request and epoch
  std::uint32_t channels = 0;

  int handshake(int user_tag) const { return base + user_tag; }
  int data(std::uint32_t channel, std::uint32_t chunk) const {
    return data_base + static_cast<int>(channel * max_chunks + chunk);
  }
  int adaptive_descriptor(std::uint32_t channel) const { return data(channel, 0); }
  int adaptive_data(std::uint32_t channel) const { return data(channel, 1); }
};

// The layout for MPI_TAG_UB = `tag_ub` (at least 32767 by the standard).
WireTags wire_tags(int tag_ub);

}  // namespace overlap::partitioned
