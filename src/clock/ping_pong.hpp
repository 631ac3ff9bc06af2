// The two-rank timestamp exchange the offset estimator works on, behind an interface so
// that the estimator runs unchanged against MPI and against simulated clocks in tests.
#pragma once

namespace overlap::clock {

// One ping-pong seen from the client: t1 (client sends), t2 (server's clock when it
// answered), t3 (client received the answer). t1 and t3 are on the client's clock.
struct Exchange {
  double t1 = 0;
  double t2 = 0;
  double t3 = 0;

  double rtt() const { return t3 - t1; }
  double client_midpoint() const { return 0.5 * (t1 + t3); }
};

class PingPongChannel {
 public:
  virtual ~PingPongChannel() = default;
  // Client side: one exchange with the server.
  virtual Exchange exchange() = 0;
};

}  // namespace overlap::clock
