#include "intercept/report/call_sites.hpp"

#include <algorithm>

namespace overlap::intercept {

std::string_view call_name(Call c) {
  switch (c) {
    case Call::send:
      return "MPI_Send";
    case Call::rsend:
      return "MPI_Rsend";
    case Call::ssend:
      return "MPI_Ssend";
    case Call::bsend:
      return "MPI_Bsend";
    case Call::recv:
      return "MPI_Recv";
    case Call::sendrecv_send:
      return "MPI_Sendrecv (send)";
    case Call::sendrecv_recv:
      return "MPI_Sendrecv (recv)";
    case Call::sendrecv_replace:
      return "MPI_Sendrecv_replace";
    case Call::bcast:
      return "MPI_Bcast";
    case Call::reduce:
      return "MPI_Reduce";
    case Call::allreduce:
      return "MPI_Allreduce";
    case Call::reduce_scatter_block:
      return "MPI_Reduce_scatter_block";
    case Call::gather:
      return "MPI_Gather";
    case Call::scatter:
      return "MPI_Scatter";
    case Call::allgather:
      return "MPI_Allgather";
    case Call::alltoall:
      return "MPI_Alltoall";
  }
  return "?";
}

namespace {
struct ReasonInfo {
  std::string_view name, text;
};
constexpr ReasonInfo kReasons[kReasonCount] = {
    {"family_off", "its call family is switched off (--defer)"},
    {"below_threshold", "smaller than --min-size"},
    {"proc_null", "MPI_PROC_NULL"},
    {"wildcard_status", "wildcard receive whose status the program wants"},
    {"noncontiguous", "receive with holes in its datatype, MPI_THREAD_MULTIPLE"},
    {"errors_return", "receive or collective on a communicator whose error handler returns errors"},
    {"stack_memory", "buffer on the stack"},
    {"shared_memory", "buffer in shared memory"},
    {"read_only_memory", "buffer not in private writable memory"},
    {"unknown_memory", "buffer not in any mapping"},
    {"shares_first_page", "its first page holds other data (align it to a page)"},
    {"shares_last_page", "its last page holds other data (end it on a page boundary)"},
    {"too_many", "too many transfers in flight"},
    {"synchronous_mode", "synchronous mode: completion tells the program the receive started"},
    {"buffered_mode", "buffered mode: MPI copies at the call already"},
    {"protect_failed", "mprotect() refused (the kernel's limit on mappings?)"},
    {"owned_by_request", "a pending request of the program's holds that memory"},
    {"sparse_type", "its datatype spans more than twice its data"},
    {"mpi_error", "MPI refused the call (its error returned to the program)"},
    {"in_place_scatter", "MPI_Reduce_scatter_block in place: its input outsizes its result"},
    {"observed_at_once",
     "its site's results were read at once (every 16th call is deferred again to look)"},
    {"halves_share_page", "MPI_Sendrecv whose send and receive buffers share a page"},
};
constexpr std::size_t kMaxSamples = 4096;
}  // namespace

std::string_view reason_name(Reason r) { return kReasons[static_cast<int>(r)].name; }
std::string_view reason_text(Reason r) { return kReasons[static_cast<int>(r)].text; }

namespace {
std::atomic<std::uint64_t> next_id{1};
}  // namespace

CallSites::CallSites() : id_(next_id.fetch_add(1)) {}

CallSites::Entry& CallSites::at(Call call, std::uintptr_t site) {
  auto [it, fresh] = sites_.try_emplace({static_cast<int>(call), site});
  if (fresh) {
    it->second.stats.call = call;
    it->second.stats.site = site;
  }
  return it->second;
}

[[gnu::hot]] SiteCounters& CallSites::counters(Call call, std::uintptr_t site, SiteCache& mine,
                                               std::uint64_t thread) {
  const std::uintptr_t key = ovx_site_key(static_cast<int>(call), site);
  if (SiteCounters* cached = ovx_site_cached(&mine, id_, key)) return *cached;
  SiteCounters* found = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    found = &at(call, site).counters[thread];
  }
  ovx_site_remember(&mine, id_, key, found);
  return *found;
}

void CallSites::deferred(SiteCounters& mine, bool by_copy) {
  ovx_counter_add(&mine.deferred, 1);
  if (by_copy) ovx_counter_add(&mine.deferred_by_copy, 1);
  deferred_total_.fetch_add(1, std::memory_order_relaxed);
}

void CallSites::completed(Call call, std::uintptr_t site, const Completion& c) {
  std::lock_guard<std::mutex> lock(mutex_);
  Entry& e = at(call, site);
  SiteStats& s = e.stats;
  s.window_min_s = s.completed == 0 ? c.window_s : std::min(s.window_min_s, c.window_s);
  s.window_max_s = std::max(s.window_max_s, c.window_s);
  s.completed += 1;
  s.window_sum_s += c.window_s;
  // Keep every k-th sample, k doubling when full: a bounded, evenly thinned record.
  const std::uint64_t stride = std::max<std::uint64_t>(1, s.completed / kMaxSamples + 1);
  if ((s.completed - 1) % stride == 0) {
    if (s.window_samples.size() >= kMaxSamples) {
      std::vector<double> thinned;
      for (std::size_t i = 0; i < s.window_samples.size(); i += 2)
        thinned.push_back(s.window_samples[i]);
      s.window_samples = std::move(thinned);
    }
    s.window_samples.push_back(c.window_s);
  }
  s.faults += c.faults;
  s.stall_s += c.stall_s;
  e.at_once = c.touched && c.touch_delay_s * 8 < c.duration_s ? e.at_once + 1 : 0;
  if (c.touched) {
    s.touched_before_completion += 1;
    TouchSite& t = s.touches[c.touch_pc];
    t.delay_min_s = t.count == 0 ? c.touch_delay_s : std::min(t.delay_min_s, c.touch_delay_s);
    t.count += 1;
    t.delay_sum_s += c.touch_delay_s;
  }
}

bool CallSites::observed_at_once(Call call, std::uintptr_t site) {
  std::lock_guard<std::mutex> lock(mutex_);
  Entry& e = at(call, site);
  if (e.at_once < kAtOnceStreak) return false;
  return ++e.waited_at_once % kAtOnceProbe != 0;
}

std::vector<SiteStats> CallSites::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<SiteStats> out;
  for (const auto& [key, e] : sites_) {
    SiteStats& s = out.emplace_back(e.stats);
    for (const auto& [thread, c] : e.counters) {
      s.calls += ovx_counter_read(&c.calls);
      s.bytes += ovx_counter_read(&c.bytes);
      s.deferred += ovx_counter_read(&c.deferred);
      s.deferred_by_copy += ovx_counter_read(&c.deferred_by_copy);
      for (int i = 0; i < kReasonCount; ++i)
        s.not_deferred[i] += ovx_counter_read(&c.not_deferred[i]);
    }
  }
  return out;
}

double median_window(const SiteStats& s) {
  if (s.window_samples.empty()) return 0;
  std::vector<double> v = s.window_samples;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(mid), v.end());
  if (v.size() % 2 == 1) return v[mid];
  const double hi = v[mid];
  const double lo = *std::max_element(v.begin(), v.begin() + static_cast<long>(mid));
  return (lo + hi) / 2;
}

}  // namespace overlap::intercept
