// Memory the program's own requests hold (intercept/runtime/program_requests.hpp): what a
// deferred transfer may not protect, from which call to which.
#include "intercept/runtime/program_requests.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "fake_handle.hpp"

namespace overlap::intercept {
namespace {

Span bytes(std::uintptr_t lo, std::uintptr_t hi, bool write) { return Span{lo, hi, write}; }
using Spans = std::vector<Span>;

// A completion call on `requests`: MPI sets the completed nonpersistent ones to null.
template <class Done>
void complete(ProgramRequests& reg, std::vector<MPI_Request>& requests,
              const std::vector<int>& freed, Done done) {
  ProgramRequests::SeenList seen;
  reg.seen(static_cast<int>(requests.size()), requests.data(), seen);
  for (int i : freed) requests[static_cast<std::size_t>(i)] = MPI_REQUEST_NULL;
  reg.after_completion(seen, requests.data(), done);
}

TEST(ProgramRequests, ANonblockingRequestHoldsItsBufferUntilItCompletes) {
  ProgramRequests reg;
  EXPECT_FALSE(reg.any());
  reg.add(handle(1), Spans{bytes(1000, 2000, true)}, false, false);
  EXPECT_TRUE(reg.holds(1500, 1501, false));
  EXPECT_TRUE(reg.holds(0, 1001, true));
  EXPECT_FALSE(reg.holds(2000, 3000, false));
  EXPECT_FALSE(reg.holds(0, 1000, false));
  std::vector<MPI_Request> requests{handle(1)};
  complete(reg, requests, {0}, [](int) { return true; });
  EXPECT_FALSE(reg.holds(1500, 1501, false));
  EXPECT_FALSE(reg.any());
}

TEST(ProgramRequests, OnlyRequestsThatMayWriteKeepASendFromItsPages) {
  ProgramRequests reg;
  reg.add(handle(1), Spans{bytes(1000, 2000, false)}, false, false);  // an Isend reads them
  EXPECT_TRUE(reg.holds(1000, 2000, false));                          // no receive there
  EXPECT_FALSE(reg.holds(1000, 2000, true));                          // a send may share them
  reg.add(handle(2), Spans{bytes(1500, 1600, true)}, false, false);   // an Irecv writes them
  EXPECT_TRUE(reg.holds(1000, 2000, true));
}

TEST(ProgramRequests, APersistentRequestHoldsItsBufferOnlyWhileActive) {
  ProgramRequests reg;
  reg.add(handle(7), Spans{bytes(100, 200, true)}, false, true);
  EXPECT_FALSE(reg.holds(100, 200, false));  // initialised, not started
  reg.started(handle(7));
  EXPECT_TRUE(reg.holds(100, 200, false));
  std::vector<MPI_Request> requests{handle(7)};
  complete(reg, requests, {}, [](int) { return false; });  // a Test that found it pending
  EXPECT_TRUE(reg.holds(100, 200, false));
  complete(reg, requests, {}, [](int) { return true; });  // completed: inactive, handle kept
  EXPECT_FALSE(reg.holds(100, 200, false));
  EXPECT_TRUE(reg.any());
  reg.started(handle(7));
  EXPECT_TRUE(reg.holds(150, 151, false));
  // MPI_Request_free while active: MPI still owns the buffer until the handle is reused.
  const auto serial = reg.serial_of(handle(7));
  ASSERT_TRUE(serial.has_value());
  reg.freed(handle(7), *serial);
  EXPECT_TRUE(reg.holds(150, 151, false));
  reg.add(handle(7), Spans{bytes(5000, 6000, true)}, false, false);  // MPI reused the handle
  EXPECT_FALSE(reg.holds(150, 151, false));
  EXPECT_TRUE(reg.holds(5000, 5001, false));
}

TEST(ProgramRequests, APartitionedSendHoldsThePartitionsReadiedInItsEpoch) {
  ProgramRequests reg;
  // 4 partitions of 2 elements of 8 bytes (extent 16: 8 bytes of holes each) at 1000.
  reg.add_partitioned_send(handle(3), {1000, 2, TypeExtent{16, 0, 8}});
  reg.readied(handle(3), 0, 0);  // not active: nothing
  EXPECT_FALSE(reg.holds(1000, 1100, false));
  reg.started(handle(3));
  EXPECT_FALSE(reg.holds(1000, 1100, false));  // nothing readied yet: fills are allowed
  reg.readied(handle(3), 2, 2);                // bytes 1064..1088
  EXPECT_TRUE(reg.holds(1064, 1065, false));
  EXPECT_TRUE(reg.holds(1087, 1088, false));
  EXPECT_FALSE(reg.holds(1088, 1100, false));
  EXPECT_FALSE(reg.holds(1000, 1064, false));
  reg.readied(handle(3), 0, 1);
  EXPECT_TRUE(reg.holds(1000, 1001, false));
  std::vector<MPI_Request> requests{handle(3)};
  complete(reg, requests, {}, [](int) { return true; });
  EXPECT_FALSE(reg.holds(1000, 1100, false));
  reg.started(handle(3));  // the next epoch starts with nothing readied
  EXPECT_FALSE(reg.holds(1064, 1065, false));
}

TEST(ProgramRequests, AReusedHandleIsNotForgottenByTheOldRequestsCompletion) {
  ProgramRequests reg;
  reg.add(handle(5), Spans{bytes(0, 100, true)}, false, false);
  ProgramRequests::SeenList seen;
  std::vector<MPI_Request> requests{handle(5)};
  reg.seen(1, requests.data(), seen);
  // Meanwhile MPI completed it elsewhere and gave the handle to another request.
  reg.add(handle(5), Spans{bytes(500, 600, true)}, false, false);
  requests[0] = MPI_REQUEST_NULL;
  reg.after_completion(seen, requests.data(), [](int) { return true; });
  EXPECT_TRUE(reg.holds(500, 600, false));
  EXPECT_FALSE(reg.holds(0, 100, false));
}

TEST(ProgramRequests, UnknownMemoryHoldsEveryPageWhileActive) {
  ProgramRequests reg;
  reg.add(handle(9), Spans{}, true, true);
  EXPECT_FALSE(reg.holds(0, 1, false));
  reg.started(handle(9));
  EXPECT_TRUE(reg.holds(0, 1, false));
  EXPECT_TRUE(reg.holds(1u << 30, (1u << 30) + 1, true));
  std::vector<MPI_Request> requests{handle(9)};
  complete(reg, requests, {}, [](int) { return true; });
  EXPECT_FALSE(reg.holds(0, 1, false));
  reg.add(handle(10), Spans{}, true, false);
  EXPECT_TRUE(reg.holds(0, 1, false));
}

TEST(ProgramRequests, ACompletionCallEndsOnlyTheRequestsItCompleted) {
  ProgramRequests reg;
  reg.add(handle(1), Spans{bytes(0, 10, true)}, false, false);
  reg.add(handle(2), Spans{bytes(10, 20, true)}, false, true);
  reg.started(handle(2));
  reg.add(handle(3), Spans{bytes(20, 30, true)}, false, true);
  reg.started(handle(3));
  std::vector<MPI_Request> requests{handle(1), handle(2), handle(3), handle(4)};
  // Waitsome: index 0 (freed by MPI) and 2 (persistent) completed.
  complete(reg, requests, {0}, [](int i) { return i == 0 || i == 2; });
  EXPECT_FALSE(reg.holds(0, 10, false));
  EXPECT_TRUE(reg.holds(10, 20, false));
  EXPECT_FALSE(reg.holds(20, 30, false));
}

TEST(ProgramRequests, EmptySpansHoldNothingButTheRequestIsOutstanding) {
  ProgramRequests reg;
  reg.add(handle(1), Spans{bytes(10, 10, true), Span{}}, false, false);  // e.g. MPI_Ibarrier
  EXPECT_TRUE(reg.any());
  EXPECT_EQ(reg.outstanding().load(), 1);
  EXPECT_FALSE(reg.holds(0, 100, false));
  reg.add(MPI_REQUEST_NULL, Spans{bytes(0, 10, true)}, false, false);
  EXPECT_EQ(reg.outstanding().load(), 1);
  reg.add(handle(2), Spans{}, true, false);  // unknown memory: every page held
  EXPECT_TRUE(reg.holds(0, 1, false));
  reg.add(handle(2), Spans{}, false, false);  // the handle reused by a request holding none
  EXPECT_FALSE(reg.holds(0, 1, false));
  EXPECT_EQ(reg.outstanding().load(), 2);
  std::vector<MPI_Request> requests{handle(1), handle(2)};
  complete(reg, requests, {0, 1}, [](int) { return true; });
  EXPECT_FALSE(reg.any());
  EXPECT_EQ(reg.outstanding().load(), 0);
}

// The engine's hold follows this count (ProgressDriver::follow_program): it must rise with
// every request posted or started and fall with every completion or free, and say when it
// turned between none and some.
TEST(ProgramRequests, TheOutstandingCountFollowsPostsStartsCompletionsAndFrees) {
  ProgramRequests reg;
  EXPECT_FALSE(reg.take_turn());
  reg.add(handle(1), Spans{bytes(0, 10, true)}, false, false);
  EXPECT_TRUE(reg.take_turn());                                 // none -> some
  EXPECT_FALSE(reg.take_turn());                                // once
  reg.add(handle(2), Spans{bytes(10, 20, true)}, false, true);  // persistent: not yet
  EXPECT_EQ(reg.outstanding().load(), 1);
  reg.started(handle(2));
  EXPECT_EQ(reg.outstanding().load(), 2);
  EXPECT_FALSE(reg.take_turn());  // some -> more: no turn
  std::vector<MPI_Request> requests{handle(1), handle(2)};
  complete(reg, requests, {0}, [](int) { return true; });  // both done, 2 stays allocated
  EXPECT_EQ(reg.outstanding().load(), 0);
  EXPECT_TRUE(reg.take_turn());
  reg.started(handle(2));
  EXPECT_EQ(reg.outstanding().load(), 1);
  reg.freed(handle(2), *reg.serial_of(handle(2)));  // freed while active
  EXPECT_EQ(reg.outstanding().load(), 0);           // nobody waits for it: no more progress owed
  EXPECT_TRUE(reg.holds(10, 20, false));            // but MPI may still write its buffer
  reg.add(handle(2), Spans{bytes(30, 40, true)}, false, false);  // the handle reused
  EXPECT_EQ(reg.outstanding().load(), 1);
  EXPECT_FALSE(reg.holds(10, 20, false));
  reg.freed(handle(2), *reg.serial_of(handle(2)));
  reg.freed(handle(2), *reg.serial_of(handle(2)));  // a second free counts nothing
  EXPECT_EQ(reg.outstanding().load(), 0);
  EXPECT_EQ(reg.tracked(), 3u);
}

TEST(ProgramRequests, AFreedRequestThatHoldsNothingIsForgotten) {
  ProgramRequests reg;
  reg.add(handle(4), Spans{bytes(0, 10, true)}, false, true);  // persistent, inactive
  reg.freed(handle(4), *reg.serial_of(handle(4)));
  EXPECT_FALSE(reg.any());
}

TEST(ProgramRequests, ManyRequestsGrowAndShrinkTheTable) {
  ProgramRequests reg;
  for (std::uintptr_t i = 1; i <= 5000; ++i)
    reg.add(handle(i * 64), Spans{bytes(i * 100, i * 100 + 10, true)}, false, false);
  for (std::uintptr_t i = 1; i <= 5000; i += 2) {
    std::vector<MPI_Request> requests{handle(i * 64)};
    complete(reg, requests, {0}, [](int) { return true; });
  }
  for (std::uintptr_t i = 1; i <= 5000; ++i)
    EXPECT_EQ(reg.holds(i * 100, i * 100 + 1, false), i % 2 == 0) << i;
  for (std::uintptr_t i = 2; i <= 5000; i += 2) {
    std::vector<MPI_Request> requests{handle(i * 64)};
    complete(reg, requests, {0}, [](int) { return true; });
  }
  EXPECT_FALSE(reg.any());
}

TEST(ProgramRequests, ACompletionAddsTheTimeFromTheCallsReturnToItsOwnStart) {
  ProgramRequests reg;
  WaitWindow window;
  std::vector<MPI_Request> requests{handle(41), handle(42)};
  reg.add(requests[0], Spans{}, false, false, true, &window);
  reg.add(requests[1], Spans{}, false, false);  // no window: a point-to-point request
  ProgramRequests::SeenList seen;
  reg.seen(2, requests.data(), seen);
  EXPECT_TRUE(seen.timed());
  const std::uint64_t called = wait_window_now_ns() + 5'000'000;  // 5 ms after the return
  requests[0] = requests[1] = MPI_REQUEST_NULL;
  reg.after_completion(
      seen, requests.data(), [](int) { return true; }, called);
  const WaitWindow::Summary s = window.summary();
  ASSERT_EQ(s.count, 1u);
  EXPECT_GE(s.min_s, 5e-3);
  EXPECT_FALSE(reg.any());
}

TEST(ProgramRequests, NoWindowForARequestNotCompletedOrFreed) {
  ProgramRequests reg;
  WaitWindow window;
  std::vector<MPI_Request> requests{handle(51)};
  reg.add(requests[0], Spans{}, false, false, true, &window);
  // A Test that found it not done: still there, nothing added.
  complete(reg, requests, {}, [](int) { return false; });
  EXPECT_EQ(window.summary().count, 0u);
  // Freed by the program: completes unseen, nothing added.
  const auto serial = reg.serial_of(requests[0]);
  ASSERT_TRUE(serial.has_value());
  reg.freed(requests[0], *serial);
  EXPECT_EQ(window.summary().count, 0u);
  // A request without a window makes a call untimed.
  std::vector<MPI_Request> plain{handle(52)};
  reg.add(plain[0], Spans{}, false, false);
  ProgramRequests::SeenList seen;
  reg.seen(1, plain.data(), seen);
  EXPECT_FALSE(seen.timed());
}

}  // namespace
}  // namespace overlap::intercept
