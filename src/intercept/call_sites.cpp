#include "intercept/call_sites.hpp"

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
    {"noncontiguous", "non-contiguous datatype"},
    {"errors_return", "the communicator's error handler returns errors"},
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
};
constexpr std::size_t kMaxSamples = 4096;
}  // namespace

std::string_view reason_name(Reason r) { return kReasons[static_cast<int>(r)].name; }
std::string_view reason_text(Reason r) { return kReasons[static_cast<int>(r)].text; }

namespace {
// A thread's recently used sites, direct-mapped by site (one look, one cache line on a
// straight call). `owner` is a CallSites id, so an entry left by an object that is gone
// never matches its successor at the same address.
struct CachedSite {
  std::uint64_t owner = 0;
  std::uintptr_t key = 0;  // site and call
  SiteCounters* counters = nullptr;
};
constexpr std::size_t kCachedSites = 16;
thread_local CachedSite cached_sites[kCachedSites];
thread_local std::uint64_t thread_serial = 0;
std::atomic<std::uint64_t> next_id{1}, next_thread{1};

// Call sites are return addresses, distinct per call; the call only tells the two halves
// of an MPI_Sendrecv apart.
std::uintptr_t key_of(Call call, std::uintptr_t site) {
  return site ^ (static_cast<std::uintptr_t>(call) << 56);
}

// Only the owning thread writes a block: a load and a store, no locked instruction.
void add(std::atomic<std::uint64_t>& counter, std::uint64_t n) {
  counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}
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

SiteCounters& CallSites::counters(Call call, std::uintptr_t site) {
  const std::uintptr_t key = key_of(call, site);
  CachedSite& slot = cached_sites[(key ^ (key >> 7) ^ (key >> 13)) % kCachedSites];
  if (slot.owner == id_ && slot.key == key) return *slot.counters;
  if (thread_serial == 0) thread_serial = next_thread.fetch_add(1);
  SiteCounters* found = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    found = &at(call, site).counters[thread_serial];
  }
  slot = {id_, key, found};
  return *found;
}

void CallSites::called(Call call, std::uintptr_t site, std::uint64_t bytes) {
  SiteCounters& s = counters(call, site);
  add(s.calls, 1);
  add(s.bytes, bytes);
}

void CallSites::deferred(Call call, std::uintptr_t site, bool by_copy) {
  SiteCounters& s = counters(call, site);
  add(s.deferred, 1);
  if (by_copy) add(s.deferred_by_copy, 1);
  deferred_total_.fetch_add(1, std::memory_order_relaxed);
}

void CallSites::not_deferred(Call call, std::uintptr_t site, Reason why) {
  add(counters(call, site).not_deferred[static_cast<std::size_t>(why)], 1);
}

void CallSites::completed(Call call, std::uintptr_t site, const Completion& c) {
  std::lock_guard<std::mutex> lock(mutex_);
  SiteStats& s = at(call, site).stats;
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
  if (c.touched) {
    s.touched_before_completion += 1;
    TouchSite& t = s.touches[c.touch_pc];
    t.delay_min_s = t.count == 0 ? c.touch_delay_s : std::min(t.delay_min_s, c.touch_delay_s);
    t.count += 1;
    t.delay_sum_s += c.touch_delay_s;
  }
}

std::vector<SiteStats> CallSites::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<SiteStats> out;
  constexpr auto relaxed = std::memory_order_relaxed;
  for (const auto& [key, e] : sites_) {
    SiteStats& s = out.emplace_back(e.stats);
    for (const auto& [thread, c] : e.counters) {
      s.calls += c.calls.load(relaxed);
      s.bytes += c.bytes.load(relaxed);
      s.deferred += c.deferred.load(relaxed);
      s.deferred_by_copy += c.deferred_by_copy.load(relaxed);
      for (std::size_t i = 0; i < c.not_deferred.size(); ++i)
        s.not_deferred[i] += c.not_deferred[i].load(relaxed);
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
