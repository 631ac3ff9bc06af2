#include "intercept/runtime/program_requests.hpp"

#include <algorithm>

namespace overlap::intercept {

void ProgramRequests::insert(MPI_Request request, Entry entry) {
  auto [it, fresh] = map_.try_emplace(request);
  if (!fresh) set_active(it->second, false);  // a handle MPI reused: the old one is gone
  entry.serial = next_serial_++;
  const bool active = entry.active;
  entry.active = false;
  it->second = std::move(entry);
  set_active(it->second, active);
  live_.store(static_cast<int>(map_.size()), std::memory_order_release);
}

void ProgramRequests::set_active(Entry& e, bool active) {
  if (e.active == active) return;
  e.active = active;
  if (e.unknown) unknown_active_ += active ? 1 : -1;
  if (!active)
    e.held.clear();
  else if (!e.partitions)
    e.held = e.spans;
}

void ProgramRequests::add(MPI_Request request, std::vector<Span> spans, bool unknown,
                          bool persistent) {
  if (request == MPI_REQUEST_NULL) return;
  std::erase_if(spans, [](const Span& s) { return s.lo >= s.hi; });
  if (spans.empty() && !unknown) return;  // nothing of the program's memory is held
  Entry e;
  e.spans = std::move(spans);
  e.unknown = unknown;
  e.persistent = persistent;
  e.active = !persistent;  // a persistent request holds nothing before MPI_Start
  std::lock_guard lock(mu_);
  insert(request, std::move(e));
}

void ProgramRequests::add_partitioned_send(MPI_Request request, const Partitions& partitions) {
  if (request == MPI_REQUEST_NULL) return;
  Entry e;
  e.persistent = true;
  e.partitions = partitions;
  std::lock_guard lock(mu_);
  insert(request, std::move(e));
}

void ProgramRequests::started(MPI_Request request) {
  if (!any()) return;
  std::lock_guard lock(mu_);
  if (auto it = map_.find(request); it != map_.end()) set_active(it->second, true);
}

void ProgramRequests::readied(MPI_Request request, std::int64_t first, std::int64_t last) {
  if (!any() || first > last) return;
  std::lock_guard lock(mu_);
  auto it = map_.find(request);
  if (it == map_.end() || !it->second.partitions || !it->second.active) return;
  const Partitions& p = *it->second.partitions;
  // Partitions first..last are one run of elements.
  const auto base = p.buf + static_cast<std::uintptr_t>(first * p.count * p.type.extent);
  const Span s = typed_span(base, (last - first + 1) * p.count, p.type, false);
  if (s.lo < s.hi) it->second.held.push_back(s);
}

void ProgramRequests::seen(int n, const MPI_Request* requests, std::vector<Seen>& out) const {
  out.clear();
  if (!any() || n <= 0 || requests == nullptr) return;
  std::lock_guard lock(mu_);
  for (int i = 0; i < n; ++i) {
    auto it = map_.find(requests[i]);
    if (it != map_.end()) out.push_back({i, requests[i], it->second.serial});
  }
}

void ProgramRequests::completed(MPI_Request request, std::uint64_t serial) {
  std::lock_guard lock(mu_);
  auto it = map_.find(request);
  if (it != map_.end() && it->second.serial == serial) set_active(it->second, false);
}

void ProgramRequests::forget(MPI_Request request, std::uint64_t serial) {
  std::lock_guard lock(mu_);
  auto it = map_.find(request);
  if (it == map_.end() || it->second.serial != serial) return;
  set_active(it->second, false);
  map_.erase(it);
  live_.store(static_cast<int>(map_.size()), std::memory_order_release);
}

bool ProgramRequests::holds(std::uintptr_t lo, std::uintptr_t hi, bool writers_only) const {
  if (!any() || lo >= hi) return false;
  std::lock_guard lock(mu_);
  if (unknown_active_ > 0) return true;
  for (const auto& [request, e] : map_) {
    for (const Span& s : e.held) {
      if (writers_only && !s.write) continue;
      if (s.lo < hi && lo < s.hi) return true;
    }
  }
  return false;
}

std::optional<bool> ProgramRequests::persistent(MPI_Request request, std::uint64_t& serial) const {
  std::lock_guard lock(mu_);
  auto it = map_.find(request);
  if (it == map_.end()) return std::nullopt;
  serial = it->second.serial;
  return it->second.persistent;
}

ProgramRequests& program_requests() {
  static auto* r = new ProgramRequests;  // never destroyed: calls may come after exit()
  return *r;
}

FootprintRecord& request_footprint() {
  thread_local FootprintRecord record;
  return record;
}

void begin_request_footprint() {
  FootprintRecord& r = request_footprint();
  r.on = true;
  r.unknown = false;
  r.spans.clear();
}

void end_request_footprint(int rc, const MPI_Request* request, bool persistent) {
  FootprintRecord& r = request_footprint();
  r.on = false;
  if (rc != MPI_SUCCESS || request == nullptr || *request == MPI_REQUEST_NULL) return;
  program_requests().add(*request, std::move(r.spans), r.unknown, persistent);
  r.spans = {};
}

}  // namespace overlap::intercept
