// Deferred transfers in flight, in a fixed table the fault handler can read without
// locks or allocation: each slot publishes the pages it protects and its state through
// atomics, and its state word is the futex a waiter sleeps on. A slot is owned by the
// thread that posts the transfer until it is active, by the completion callback until it
// is done, and then by the reaper, which folds it into the call-site statistics once no
// handler is looking at it.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "intercept/placement/placement_reason.hpp"
#include "intercept/report/call_sites.hpp"
#include "intercept/runtime/bounce_pool.hpp"

namespace overlap::intercept {

enum SlotState : int { kFree = 0, kReserved = 1, kActive = 2, kDone = 3 };

struct Slot;
struct SlotPart {  // one request of a transfer (Sendrecv_replace has two)
  Slot* slot = nullptr;
  bool is_recv = false;
};

struct Slot {
  std::atomic<int> state{kFree};  // futex word
  std::atomic<std::uint32_t> token{0};
  // Pages this transfer protects ([0, 0) when none) and the program's bytes it reads or
  // writes ([0, 0) for a send from a copy).
  std::atomic<std::uintptr_t> page_lo{0}, page_hi{0};
  std::atomic<std::uintptr_t> data_lo{0}, data_hi{0};
  std::atomic<bool> no_access{false};  // receive pages, else read-only
  std::atomic<int> handlers{0};        // fault handlers looking at this slot
  std::atomic<int> pending{0};         // requests not yet complete
  std::atomic<std::uint64_t> touch_ns{0};
  std::atomic<std::uintptr_t> touch_pc{0};
  std::atomic<std::uint32_t> faults{0};
  std::atomic<std::uint64_t> stall_ns{0};
  // The posting thread (its shim thread state's serial): a fence waits for the calling
  // thread's own transfers whatever their buffers. Atomic: a fence may read a slot being
  // reused.
  std::atomic<std::uint64_t> owner{0};
  // Set before the slot is published, read after.
  Call call = Call::send;
  std::uintptr_t site = 0;
  std::atomic<std::uint64_t> return_ns{0};  // when the call returned to the program
  std::uint64_t complete_ns = 0;
  // Internal buffers from Runtime::bounces: a receive's landing area, whose data goes
  // to place_addr in the program's memory; a copy of outgoing data.
  BouncePool::Buffer recv_bounce, send_bounce;
  std::uintptr_t place_addr = 0;
  // A receive whose datatype has holes: this many bytes from place_addr are placed (the
  // landing area started as their copy), whatever the message's length; 0: the message's.
  std::size_t place_whole = 0;
  // The communicator's error handler ends the job (else a send's late error is reported,
  // not fatal: deferral.hpp).
  bool errors_fatal = true;
  bool movable = false;                         // its pages may be moved into place (placement.hpp)
  ReceiveCopy copy_why = ReceiveCopy::stopped;  // else why not (move_gate.hpp)
  MPI_Status status{};
  SlotPart parts[2];
};

inline constexpr int kSlotCount = 1024;

class TransferTable {
 public:
  // A free slot, reserved for the caller; nullptr when all are in use.
  Slot* reserve();
  void publish(Slot* s);  // reserved -> active
  // active -> done (its transfer finished); the caller wakes the slot's waiters.
  void mark_done(Slot& s);
  // The active slot whose pages contain `address`, with its handler count raised (the
  // caller lowers it); nullptr when none. Async-signal-safe.
  Slot* hold_covering(std::uintptr_t address);
  // Calls f(slot, token) for each active slot that a libc/MPI access to [lo, hi) would
  // conflict with: `write` = any of its pages or bytes; else its no-access pages only.
  template <typename F>
  void for_each_conflict(std::uintptr_t lo, std::uintptr_t hi, bool write, F&& f);
  template <typename F>
  void for_each_active(F&& f);
  // Slots done and not looked at: f(slot) then freed.
  template <typename F>
  void reap(F&& f);
  Slot* find_token(std::uint32_t token);

 private:
  // Slots done and not reaped: every intercepted call reaps, and most find nothing, so
  // they skip the scan (a burst of large transfers can leave `high` in the hundreds).
  // Before the slots, so that look stays near the rest of what a call reads.
  std::atomic<int> done_{0};
  std::atomic<int> high_{0};  // slots [0, high) have been used
  Slot slots_[kSlotCount];
};

template <typename F>
void TransferTable::for_each_conflict(std::uintptr_t lo, std::uintptr_t hi, bool write, F&& f) {
  const int high = high_.load(std::memory_order_acquire);
  for (int i = 0; i < high; ++i) {
    Slot& s = slots_[i];
    if (s.state.load(std::memory_order_acquire) != kActive) continue;
    const std::uint32_t token = s.token.load(std::memory_order_acquire);
    const std::uintptr_t plo = s.page_lo.load(std::memory_order_relaxed);
    const std::uintptr_t phi = s.page_hi.load(std::memory_order_relaxed);
    bool hit = plo < hi && lo < phi && (write || s.no_access.load(std::memory_order_relaxed));
    if (!hit && write) {
      const std::uintptr_t dlo = s.data_lo.load(std::memory_order_relaxed);
      const std::uintptr_t dhi = s.data_hi.load(std::memory_order_relaxed);
      hit = dlo < hi && lo < dhi;
    }
    if (hit) f(s, token);
  }
}

template <typename F>
void TransferTable::for_each_active(F&& f) {
  const int high = high_.load(std::memory_order_acquire);
  for (int i = 0; i < high; ++i) {
    Slot& s = slots_[i];
    if (s.state.load(std::memory_order_acquire) == kActive) f(s, s.token.load());
  }
}

template <typename F>
void TransferTable::reap(F&& f) {
  if (done_.load(std::memory_order_acquire) == 0) return;
  const int high = high_.load(std::memory_order_acquire);
  for (int i = 0; i < high; ++i) {
    Slot& s = slots_[i];
    if (s.state.load(std::memory_order_acquire) != kDone) continue;
    if (s.handlers.load(std::memory_order_acquire) != 0) continue;
    int expected = kDone;
    if (!s.state.compare_exchange_strong(expected, kReserved)) continue;
    if (s.handlers.load(std::memory_order_acquire) != 0) {  // a handler arrived meanwhile
      s.state.store(kDone, std::memory_order_release);
      continue;
    }
    done_.fetch_sub(1, std::memory_order_relaxed);
    f(s);
    s.state.store(kFree, std::memory_order_release);
  }
}

}  // namespace overlap::intercept
