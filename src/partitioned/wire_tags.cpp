#include "partitioned/wire_tags.hpp"

#include <algorithm>

namespace overlap::partitioned {

WireTags wire_tags(int tag_ub) {
  WireTags t;
  const std::int64_t ub = tag_ub;
  t.base = static_cast<int>(ub / 2 + 1);
  const std::int64_t span = ub - t.base + 1;
  t.user_tag_limit = static_cast<int>(std::min<std::int64_t>(std::int64_t{1} << 20, span / 8));
  t.data_base = t.base + t.user_tag_limit;
  const std::int64_t data_span = ub - t.data_base + 1;
  t.max_chunks = static_cast<std::uint32_t>(std::min<std::int64_t>(4096, data_span / 64));
  t.channels = static_cast<std::uint32_t>(data_span / t.max_chunks);
  return t;
}

}  // namespace overlap::partitioned
