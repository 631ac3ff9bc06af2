// Where a rank runs, as result files say it: the calling thread's affinity mask as a
// cpulist, which must name exactly the CPUs sched_getaffinity gives.
#include "base/cpu_list.hpp"

#include <gtest/gtest.h>
#include <sched.h>

namespace overlap {
namespace {

std::set<int> parse(const std::string& list) {
  std::set<int> cpus;
  std::size_t at = 0;
  while (at < list.size()) {
    const std::size_t end = list.find(',', at);
    const std::string part = list.substr(at, end == std::string::npos ? end : end - at);
    const std::size_t dash = part.find('-');
    const int lo = std::stoi(part.substr(0, dash));
    const int hi = dash == std::string::npos ? lo : std::stoi(part.substr(dash + 1));
    for (int c = lo; c <= hi; ++c) cpus.insert(c);
    at = end == std::string::npos ? list.size() : end + 1;
  }
  return cpus;
}

TEST(CpuList, AffinityIsTheMaskTheKernelGives) {
  cpu_set_t saved;
  ASSERT_EQ(sched_getaffinity(0, sizeof saved, &saved), 0);
  std::set<int> want;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &saved)) want.insert(c);
  EXPECT_EQ(parse(affinity_cpu_list()), want);
  // Narrowed to one CPU, the list says so (and the thread gets its mask back).
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(*want.begin(), &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  EXPECT_EQ(affinity_cpu_list(), std::to_string(*want.begin()));
  sched_setaffinity(0, sizeof saved, &saved);
  EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 6, 8, 9}), "0-3,6,8-9");
}

}  // namespace
}  // namespace overlap
