// A one-line progress bar with an ETA, redrawn in place on a terminal. Work is weighted
// (a point with long targets counts more than a short one), so the ETA is not fooled by
// the order of the grid. Disabled, it prints nothing at all.
#pragma once

#include <chrono>
#include <ostream>
#include <string>

namespace overlap::output {

class ProgressBar {
 public:
  ProgressBar(std::ostream& out, bool enabled, double total_weight, int total_points);
  // `done_weight` of the total is finished, `points` of them; `now` names what runs next.
  void update(double done_weight, int points, const std::string& now);
  void finish();  // clears the line

 private:
  std::ostream& out_;
  bool enabled_;
  double total_;
  int total_points_;
  std::chrono::steady_clock::time_point start_;
};

// "1h02m", "3m05s", "42s".
std::string format_eta(double seconds);

}  // namespace overlap::output
