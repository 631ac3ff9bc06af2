#include "progress/doorbell.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <climits>

namespace overlap::progress {

static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t),
              "the futex is the atomic's own word");

void Doorbell::wait(std::uint32_t seen, std::chrono::microseconds d) {
  if (d.count() <= 0) return;
  const auto s = std::chrono::duration_cast<std::chrono::seconds>(d);
  const timespec timeout{static_cast<time_t>(s.count()),
                         static_cast<long>((d - s).count()) * 1000L};
  // Counted before the wait, both sequentially consistent: a ring() that saw no sleeper
  // incremented the word before this count, so the wait below sees the word changed.
  sleepers_.fetch_add(1);
  // Returns at once when a ring came in between (the word no longer equals `seen`).
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&rings_), FUTEX_WAIT_PRIVATE, seen, &timeout,
          nullptr, 0);
  sleepers_.fetch_sub(1);
}

void Doorbell::ring() noexcept {
  rings_.fetch_add(1);
  if (sleepers_.load() == 0) return;
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&rings_), FUTEX_WAKE_PRIVATE, INT_MAX,
          nullptr, nullptr, 0);
}

}  // namespace overlap::progress
