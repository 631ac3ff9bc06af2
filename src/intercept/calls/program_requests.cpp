#include "intercept/calls/program_requests.hpp"

#include <algorithm>

namespace overlap::intercept {

void ProgramRequests::add(MPI_Request request, std::vector<Span> spans, bool unknown,
                          bool persistent) {
  if (request == MPI_REQUEST_NULL) return;
  std::erase_if(spans, [](const Span& s) { return s.lo >= s.hi; });
  if (spans.empty() && !unknown) return;  // nothing of the program's memory is held
  std::lock_guard lock(mu_);
  auto [it, fresh] = map_.try_emplace(request);
  if (!fresh && it->second.unknown) --unknown_;  // a handle MPI reused: the old one is gone
  it->second = Entry{std::move(spans), unknown, persistent, next_serial_++};
  if (unknown) ++unknown_;
  live_.store(static_cast<int>(map_.size()), std::memory_order_release);
}

void ProgramRequests::held(int n, const MPI_Request* requests, std::vector<Held>& out) const {
  out.clear();
  if (!any() || n <= 0 || requests == nullptr) return;
  std::lock_guard lock(mu_);
  for (int i = 0; i < n; ++i) {
    auto it = map_.find(requests[i]);
    if (it != map_.end()) out.push_back({i, requests[i], it->second.serial});
  }
}

void ProgramRequests::release_completed(const std::vector<Held>& held,
                                        const MPI_Request* requests) {
  for (const Held& h : held) {
    if (requests[h.index] == MPI_REQUEST_NULL) forget(h.request, h.serial);
  }
}

void ProgramRequests::forget(MPI_Request request, std::uint64_t serial) {
  std::lock_guard lock(mu_);
  auto it = map_.find(request);
  if (it == map_.end() || it->second.serial != serial) return;
  if (it->second.unknown) --unknown_;
  map_.erase(it);
  live_.store(static_cast<int>(map_.size()), std::memory_order_release);
}

bool ProgramRequests::holds(std::uintptr_t lo, std::uintptr_t hi, bool writers_only) const {
  if (!any() || lo >= hi) return false;
  std::lock_guard lock(mu_);
  if (unknown_ > 0) return true;
  for (const auto& [request, e] : map_) {
    for (const Span& s : e.spans) {
      if (writers_only && !s.write) continue;
      if (s.lo < hi && lo < s.hi) return true;
    }
  }
  return false;
}

bool ProgramRequests::persistent(MPI_Request request, std::uint64_t& serial) const {
  std::lock_guard lock(mu_);
  auto it = map_.find(request);
  if (it == map_.end()) return false;
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
