#include "intercept/runtime/status_codec.hpp"

namespace overlap::intercept {

namespace {
// Open MPI: `_cancelled` is 0 or 1 in every status it makes.
// MPICH: `count_hi_and_cancelled` holds bit 0 = cancelled and the count's bits from 31
// up; this value means a count of about 2^61 bytes.
constexpr int kMark = 0x4f565800;  // "OVX\0", even
}  // namespace

#if defined(OPEN_MPI)
void encode_pending(MPI_Status& status, std::uint32_t token) {
  status._cancelled = kMark;
  status._ucount = token;
}
std::optional<std::uint32_t> pending_token(const MPI_Status& status) {
  if (status._cancelled != kMark) return std::nullopt;
  return static_cast<std::uint32_t>(status._ucount);
}
#elif defined(MPICH)
void encode_pending(MPI_Status& status, std::uint32_t token) {
  status.count_hi_and_cancelled = kMark;
  status.count_lo = static_cast<int>(token);
}
std::optional<std::uint32_t> pending_token(const MPI_Status& status) {
  if (status.count_hi_and_cancelled != kMark) return std::nullopt;
  return static_cast<std::uint32_t>(status.count_lo);
}
#else
#error "status_codec: the hidden fields of MPI_Status are known for Open MPI and MPICH only"
#endif

}  // namespace overlap::intercept
