#include "intercept/runtime/program_requests.hpp"

#include <sched.h>

#include <algorithm>
#include <cstring>

namespace overlap::intercept {

namespace {

constexpr std::size_t kMinCapacity = 64;

std::uint64_t handle_bits(MPI_Request r) {
  std::uint64_t v = 0;
  std::memcpy(&v, &r, std::min(sizeof v, sizeof r));
  return v;
}

bool overlaps(const Span& s, std::uintptr_t lo, std::uintptr_t hi, bool writers_only) {
  return s.lo < hi && lo < s.hi && (!writers_only || s.write);
}

}  // namespace

ProgramRequests::ProgramRequests() : slots_(kMinCapacity) {}

ProgramRequests::Guard::Guard(const ProgramRequests& t) : t_(t) {
  for (int spins = 0; t_.lock_.test_and_set(std::memory_order_acquire); ++spins) {
    if (spins > 64) sched_yield();  // contended: let the holder run
  }
}

std::size_t ProgramRequests::slot_of(MPI_Request request) const {
  return static_cast<std::size_t>((handle_bits(request) * 0x9E3779B97F4A7C15ull) >> 20) &
         (slots_.size() - 1);
}

ProgramRequests::Entry* ProgramRequests::find(MPI_Request request) {
  for (std::size_t i = slot_of(request);; i = (i + 1) & (slots_.size() - 1)) {
    Entry& e = slots_[i];
    if (e.request == MPI_REQUEST_NULL) return nullptr;
    if (e.request == request) return &e;
  }
}

const ProgramRequests::Entry* ProgramRequests::find(MPI_Request request) const {
  return const_cast<ProgramRequests*>(this)->find(request);
}

void ProgramRequests::resize(std::size_t capacity) {
  std::vector<Entry> old(capacity);
  old.swap(slots_);
  for (Entry& e : old) {
    if (e.request == MPI_REQUEST_NULL) continue;
    std::size_t i = slot_of(e.request);
    while (slots_[i].request != MPI_REQUEST_NULL) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = std::move(e);
  }
}

ProgramRequests::Extra* ProgramRequests::extra_of(const Entry& e) {
  if (!e.extra) return nullptr;
  for (Extra& x : extras_)
    if (x.request == e.request && x.serial == e.serial) return &x;
  return nullptr;
}

const ProgramRequests::Extra* ProgramRequests::extra_of(const Entry& e) const {
  return const_cast<ProgramRequests*>(this)->extra_of(e);
}

void ProgramRequests::insert(Entry entry, Extra* extra) {
  if (Entry* old = find(entry.request)) erase(old);  // a handle MPI gave another request
  if (2 * (size_ + 1) > slots_.size()) resize(2 * slots_.size());
  std::size_t i = slot_of(entry.request);
  while (slots_[i].request != MPI_REQUEST_NULL) i = (i + 1) & (slots_.size() - 1);
  entry.serial = next_serial_++;
  const bool active = entry.active;
  entry.active = false;
  entry.extra = extra != nullptr;
  slots_[i] = entry;
  if (extra != nullptr) {
    extra->request = entry.request;
    extra->serial = entry.serial;
    extras_.push_back(std::move(*extra));
  }
  set_active(slots_[i], active);
  ++size_;
  live_.store(static_cast<int>(size_), std::memory_order_release);
}

// Backward-shift deletion: the probe sequences of the entries after it stay unbroken.
void ProgramRequests::erase(Entry* e) {
  set_active(*e, false);
  if (e->extra) {
    std::erase_if(extras_,
                  [&](const Extra& x) { return x.request == e->request && x.serial == e->serial; });
  }
  std::size_t hole = static_cast<std::size_t>(e - slots_.data());
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = (hole + 1) & mask; slots_[i].request != MPI_REQUEST_NULL;
       i = (i + 1) & mask) {
    const std::size_t home = slot_of(slots_[i].request);
    // Move it back when its home is not within (hole, i] cyclically.
    if (((i - home) & mask) >= ((i - hole) & mask)) {
      slots_[hole] = slots_[i];
      hole = i;
    }
  }
  slots_[hole] = Entry{};
  --size_;
  live_.store(static_cast<int>(size_), std::memory_order_release);
  if (slots_.size() > kMinCapacity && 8 * size_ < slots_.size()) resize(slots_.size() / 2);
}

void ProgramRequests::count_outstanding(int delta) {
  const int before = outstanding_.load(std::memory_order_relaxed);
  const int after = before + delta;
  outstanding_.store(after, std::memory_order_release);
  if ((before == 0) != (after == 0)) turned_.store(true, std::memory_order_release);
}

void ProgramRequests::set_active(Entry& e, bool active) {
  if (e.active == active) return;
  e.active = active;
  if (!e.freed && !e.quiet) count_outstanding(active ? 1 : -1);
  if (e.unknown) unknown_active_ += active ? 1 : -1;
  if (Extra* x = extra_of(e)) x->readied = Span{};  // an epoch starts with nothing readied
}

void ProgramRequests::add(MPI_Request request, std::span<const Span> spans, bool unknown,
                          bool persistent, bool counted, WaitWindow* window) {
  if (request == MPI_REQUEST_NULL) return;
  Entry e;
  e.request = request;
  if (window != nullptr && !persistent) {
    e.window = window;
    e.returned_ns = wait_window_now_ns();
  }
  e.unknown = unknown;
  e.quiet = !counted;
  e.persistent = persistent;
  e.active = !persistent;  // a persistent request holds nothing before MPI_Start
  std::size_t held = 0;
  for (const Span& sp : spans) {
    if (sp.lo >= sp.hi) continue;
    if (held++ == 0) e.span = sp;
  }
  if (held <= 1) {  // the usual request: one span, nothing to allocate
    Guard hold(*this);
    insert(e, nullptr);  // also holding nothing: it is outstanding
    return;
  }
  Extra extra;  // the spans after the first
  extra.spans.reserve(held - 1);
  bool first = true;
  for (const Span& sp : spans) {
    if (sp.lo >= sp.hi) continue;
    if (!first) extra.spans.push_back(sp);
    first = false;
  }
  Guard hold(*this);
  insert(e, &extra);
}

void ProgramRequests::add_partitioned_send(MPI_Request request, const Partitions& partitions) {
  if (request == MPI_REQUEST_NULL) return;
  Entry e;
  e.request = request;
  e.persistent = true;
  Extra extra;
  extra.partitioned = true;
  extra.partitions = partitions;
  Guard hold(*this);
  insert(e, &extra);
}

void ProgramRequests::started(MPI_Request request) {
  if (!any()) return;
  Guard hold(*this);
  if (Entry* e = find(request)) set_active(*e, true);
}

void ProgramRequests::readied(MPI_Request request, std::int64_t first, std::int64_t last) {
  if (!any() || first > last) return;
  Guard hold(*this);
  Entry* e = find(request);
  Extra* x = e != nullptr && e->active ? extra_of(*e) : nullptr;
  if (x == nullptr || !x->partitioned) return;
  const Partitions& p = x->partitions;
  // Partitions first..last are one run of elements; the hold is the hull of all readied.
  const auto base = p.buf + static_cast<std::uintptr_t>(first * p.count * p.type.extent);
  const Span sp = typed_span(base, (last - first + 1) * p.count, p.type, false);
  if (sp.lo >= sp.hi) return;
  if (x->readied.lo >= x->readied.hi) {
    x->readied = sp;
  } else {
    x->readied.lo = std::min(x->readied.lo, sp.lo);
    x->readied.hi = std::max(x->readied.hi, sp.hi);
  }
}

void ProgramRequests::seen(int n, const MPI_Request* requests, SeenList& out) const {
  out.clear();
  if (!any() || n <= 0 || requests == nullptr) return;
  Guard hold(*this);
  for (int i = 0; i < n; ++i) {
    if (requests[i] == MPI_REQUEST_NULL) continue;
    if (const Entry* e = find(requests[i])) {
      out.push({i, requests[i], e->serial});
      if (e->window != nullptr) out.mark_timed();
    }
  }
}

std::optional<std::uint64_t> ProgramRequests::serial_of(MPI_Request request) const {
  if (!any() || request == MPI_REQUEST_NULL) return std::nullopt;
  Guard hold(*this);
  const Entry* e = find(request);
  return e != nullptr ? std::optional<std::uint64_t>(e->serial) : std::nullopt;
}

void ProgramRequests::freed(MPI_Request request, std::uint64_t serial) {
  Guard hold(*this);
  Entry* e = find(request);
  if (e == nullptr || e->serial != serial) return;
  if (!e->active) {
    erase(e);
  } else if (!e->freed) {
    e->freed = true;  // its memory stays held; nobody waits for it any more
    if (!e->quiet) count_outstanding(-1);
  }
}

bool ProgramRequests::holds(std::uintptr_t lo, std::uintptr_t hi, bool writers_only) const {
  if (!any() || lo >= hi) return false;
  Guard hold(*this);
  if (unknown_active_ > 0) return true;
  for (const Entry& e : slots_) {
    if (e.request == MPI_REQUEST_NULL || !e.active) continue;
    if (overlaps(e.span, lo, hi, writers_only)) return true;
  }
  for (const Extra& x : extras_) {
    const Entry* e = find(x.request);
    if (e == nullptr || e->serial != x.serial || !e->active) continue;
    if (x.partitioned && overlaps(x.readied, lo, hi, writers_only)) return true;
    for (const Span& sp : x.spans)
      if (overlaps(sp, lo, hi, writers_only)) return true;
  }
  return false;
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
  r.quiet = false;
  r.spans.clear();
}

void end_request_footprint(int rc, const MPI_Request* request, bool persistent) {
  FootprintRecord& r = request_footprint();
  r.on = false;
  // Taken whatever happens next: an announcement is for this call only.
  WaitWindow* window = take_wait_window(request);
  if (rc != MPI_SUCCESS || request == nullptr || *request == MPI_REQUEST_NULL) return;
  program_requests().add(*request, r.spans, r.unknown, persistent, !r.quiet, window);
}

}  // namespace overlap::intercept
