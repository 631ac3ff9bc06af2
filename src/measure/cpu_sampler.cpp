#include "measure/cpu_sampler.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdlib>

namespace overlap::measure {
namespace {

// Whole small file (the /proc files read here are a few hundred bytes to a few KiB; only
// /proc/stat's first lines matter, so a prefix is enough there).
std::optional<std::string> read_file(const std::string& path, std::size_t limit = 1 << 16) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text(limit, '\0');
  std::size_t got = 0;
  while (got < limit) {
    const ssize_t n = ::read(fd, text.data() + got, limit - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  text.resize(got);
  return text;
}

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '\n') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
    if (i < s.size() && s[i] == '\n') break;
  }
  return out;
}

template <class T>
std::optional<T> number(std::string_view s) {
  T v{};
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

int this_tid() { return static_cast<int>(::gettid()); }

}  // namespace

std::optional<TaskStat> parse_task_stat(std::string_view text, double tick_s) {
  // "pid (comm) state ppid ..." where comm may hold spaces and parentheses.
  const auto open = text.find('(');
  const auto close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    return std::nullopt;
  const std::vector<std::string_view> f = words(text.substr(close + 1));
  // f[0] is field 3 (state); utime and stime are fields 14 and 15.
  if (f.size() < 13) return std::nullopt;
  const auto user = number<long long>(f[11]);
  const auto system = number<long long>(f[12]);
  if (!user || !system) return std::nullopt;
  return TaskStat{std::string(text.substr(open + 1, close - open - 1)),
                  static_cast<double>(*user) * tick_s, static_cast<double>(*system) * tick_s};
}

std::optional<double> parse_schedstat(std::string_view text) {
  const std::vector<std::string_view> f = words(text);
  if (f.empty()) return std::nullopt;
  const auto ns = number<unsigned long long>(f[0]);
  if (!ns) return std::nullopt;
  return static_cast<double>(*ns) * 1e-9;
}

std::optional<long> parse_involuntary_switches(std::string_view text) {
  constexpr std::string_view key = "nonvoluntary_ctxt_switches:";
  const auto at = text.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  const std::vector<std::string_view> f = words(text.substr(at + key.size()));
  if (f.empty()) return std::nullopt;
  return number<long>(f[0]);
}

std::optional<KernelCounters> parse_proc_stat(std::string_view text, const std::set<int>& cpus,
                                              double tick_s) {
  KernelCounters k;
  std::set<int> seen;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto end = text.find('\n', pos);
    const std::string_view line =
        text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    pos = end == std::string_view::npos ? text.size() : end + 1;
    if (!line.starts_with("cpu")) break;  // the per-CPU lines come first
    const std::vector<std::string_view> f = words(line);
    const auto cpu = number<int>(f[0].substr(3));
    if (!cpu || !cpus.contains(*cpu) || f.size() < 8) continue;
    // cpuN user nice system idle iowait irq softirq ...
    const auto system = number<long long>(f[3]);
    const auto irq = number<long long>(f[6]);
    const auto softirq = number<long long>(f[7]);
    if (!system || !irq || !softirq) return std::nullopt;
    k.system_s += static_cast<double>(*system) * tick_s;
    k.irq_s += static_cast<double>(*irq) * tick_s;
    k.softirq_s += static_cast<double>(*softirq) * tick_s;
    seen.insert(*cpu);
  }
  if (seen != cpus) return std::nullopt;
  return k;
}

std::string CpuSampler::kernel_id() {
  const auto text = read_file("/proc/sys/kernel/random/boot_id", 256);
  if (!text) return "";
  const auto end = text->find_first_of("\n");
  return text->substr(0, end);
}

CpuSampler::CpuSampler() {
  computation_.insert(this_tid());
  const long hz = ::sysconf(_SC_CLK_TCK);
  if (hz > 0) tick_s_ = 1.0 / static_cast<double>(hz);
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (::sched_getaffinity(0, sizeof mask, &mask) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &mask)) cpus_.insert(c);
    }
  }
  const std::string self = "/proc/self/task/" + std::to_string(this_tid());
  const auto stat = read_file(self + "/stat");
  if (!stat || !parse_task_stat(*stat, tick_s_)) {
    unavailable_ = "per-thread counters unreadable (" + self + "/stat): not Linux or no /proc";
    return;
  }
  const auto sched = read_file(self + "/schedstat");
  schedstat_ = sched && parse_schedstat(*sched);
  if (cpus_.empty()) {
    kernel_unavailable_ = "the process's affinity mask could not be read";
  } else if (const auto text = read_file("/proc/stat", 1 << 18);
             !text || !parse_proc_stat(*text, cpus_, tick_s_)) {
    kernel_unavailable_ = "/proc/stat does not list every CPU of the affinity mask";
  }
}

void CpuSampler::add_computation_threads(const std::vector<int>& tids) {
  computation_.insert(tids.begin(), tids.end());
}

std::optional<CpuSample> CpuSampler::sample() const {
  if (!unavailable_.empty()) return std::nullopt;
  CpuSample s;
  s.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  DIR* dir = ::opendir("/proc/self/task");
  if (dir == nullptr) return std::nullopt;
  while (const dirent* e = ::readdir(dir)) {
    const auto tid = number<int>(std::string_view(e->d_name));
    if (!tid) continue;
    const std::string base = "/proc/self/task/" + std::string(e->d_name);
    const auto text = read_file(base + "/stat");
    const auto stat = text ? parse_task_stat(*text, tick_s_) : std::nullopt;
    if (!stat) continue;  // the thread ended meanwhile
    ThreadCounters t;
    t.tid = *tid;
    t.name = stat->name;
    t.user_tick_s = stat->user_s;
    t.system_tick_s = stat->system_s;
    t.cpu_s = stat->user_s + stat->system_s;
    if (schedstat_) {
      if (const auto ss = read_file(base + "/schedstat"))
        t.cpu_s = parse_schedstat(*ss).value_or(t.cpu_s);
    }
    if (computation_.contains(*tid)) {
      t.role = ThreadRole::computation;
      if (const auto st = read_file(base + "/status"))
        t.involuntary_switches = parse_involuntary_switches(*st).value_or(0);
    } else if (t.name == kProgressThreadName) {
      t.role = ThreadRole::progress;
    }
    s.threads.push_back(std::move(t));
  }
  ::closedir(dir);
  if (kernel_unavailable_.empty()) {
    if (const auto text = read_file("/proc/stat", 1 << 18))
      s.kernel = parse_proc_stat(*text, cpus_, tick_s_);
  }
  rusage ru{};
  if (::getrusage(RUSAGE_SELF, &ru) == 0) {
    s.process_system_s =
        static_cast<double>(ru.ru_stime.tv_sec) + static_cast<double>(ru.ru_stime.tv_usec) * 1e-6;
  }
  return s;
}

}  // namespace overlap::measure
