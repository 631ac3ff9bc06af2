#include "output/progress_bar.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>

namespace overlap::output {

constexpr int kWidth = 30;

std::string format_eta(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

ProgressBar::ProgressBar(std::ostream& out, bool enabled, double total_weight, int total_points)
    : out_(out),
      enabled_(enabled),
      total_(total_weight),
      total_points_(total_points),
      start_(std::chrono::steady_clock::now()) {}

void ProgressBar::update(double done_weight, int points, const std::string& now) {
  if (!enabled_) return;
  const double fraction = total_ > 0 ? std::clamp(done_weight / total_, 0.0, 1.0) : 1.0;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::string eta =
      done_weight > 0 ? format_eta(elapsed * (total_ - done_weight) / done_weight) : "?";
  const int filled = static_cast<int>(fraction * kWidth);
  fmt::print(out_, "\r\033[K[{}{}] {}/{} ETA {}  {}", std::string(filled, '#'),
             std::string(kWidth - filled, ' '), points, total_points_, eta, now);
  out_.flush();
}

void ProgressBar::finish() {
  if (!enabled_) return;
  fmt::print(out_, "\r\033[K");
  out_.flush();
}

}  // namespace overlap::output
