// What the sweeps measure: one operation that is started, then completed, on buffers of a
// size the sweep may change. The MPI library's and liboverlap's collectives implement it
// (collective.hpp); the known-answer tests implement it with stand-ins of known duration
// that go through the very same sweep code.
#pragma once

namespace overlap::bench {

class Operation {
 public:
  virtual ~Operation() = default;

  // False for operations without a message (barrier): calibration then only checks the
  // target against what the operation takes.
  virtual bool has_size() const = 0;
  virtual int element_bytes() const = 0;
  // Largest element count whose buffers fit in `max_bytes` on this rank (and MPI's int).
  virtual long max_elements(double max_bytes) const = 0;
  // Allocates (and touches) buffers for `elements` elements per message.
  virtual void resize(long elements) = 0;
  virtual long elements() const = 0;

  // Starts the operation (nonblocking).
  virtual void start() = 0;
  // MPI_Test on the started operation: true once it completed (and after).
  virtual bool test() = 0;
  // Completes the started operation (MPI_Wait).
  virtual void wait() = 0;
};

}  // namespace overlap::bench
