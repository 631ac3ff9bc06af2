#include "intercept/runtime/transfer_table.hpp"

namespace overlap::intercept {

Slot* TransferTable::reserve() {
  for (int i = 0; i < kSlotCount; ++i) {
    Slot& s = slots_[i];
    int expected = kFree;
    if (s.state.load(std::memory_order_relaxed) != kFree) continue;
    if (!s.state.compare_exchange_strong(expected, kReserved)) continue;
    int high = high_.load();
    while (high < i + 1 && !high_.compare_exchange_weak(high, i + 1)) {
    }
    s.page_lo = 0;
    s.page_hi = 0;
    s.data_lo = 0;
    s.data_hi = 0;
    s.no_access = false;
    s.pending = 0;
    s.touch_ns = 0;
    s.touch_pc = 0;
    s.faults = 0;
    s.stall_ns = 0;
    s.recv_bounce = {};
    s.send_bounce = {};
    s.place_addr = 0;
    s.complete_ns = 0;
    s.return_ns = 0;
    s.parts[0] = {&s, false};
    s.parts[1] = {&s, false};
    return &s;
  }
  return nullptr;
}

void TransferTable::publish(Slot* s) { s->state.store(kActive, std::memory_order_release); }

void TransferTable::mark_done(Slot& s) {
  // Counted first: a reaper that sees the slot done also sees the count (release below).
  done_.fetch_add(1, std::memory_order_relaxed);
  s.state.store(kDone, std::memory_order_release);
}

Slot* TransferTable::hold_covering(std::uintptr_t address) {
  const int high = high_.load(std::memory_order_acquire);
  for (int i = 0; i < high; ++i) {
    Slot& s = slots_[i];
    if (s.state.load(std::memory_order_acquire) != kActive) continue;
    s.handlers.fetch_add(1, std::memory_order_acq_rel);
    const bool covers = s.state.load(std::memory_order_acquire) == kActive &&
                        s.page_lo.load(std::memory_order_relaxed) <= address &&
                        address < s.page_hi.load(std::memory_order_relaxed);
    if (covers) return &s;
    s.handlers.fetch_sub(1, std::memory_order_acq_rel);
  }
  return nullptr;
}

Slot* TransferTable::find_token(std::uint32_t token) {
  const int high = high_.load(std::memory_order_acquire);
  for (int i = 0; i < high; ++i) {
    Slot& s = slots_[i];
    const int st = s.state.load(std::memory_order_acquire);
    if ((st == kActive || st == kDone) && s.token.load() == token) return &s;
  }
  return nullptr;
}

}  // namespace overlap::intercept
