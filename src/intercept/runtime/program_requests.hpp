// Memory the program's own requests hand to MPI beyond the call that made them: the
// buffers of its nonblocking calls (point-to-point, collectives, MPI-IO, request-based
// one-sided) from the call's return until the request completes, and those of its
// persistent requests while they are active (from MPI_Start until completed; a
// partitioned send's partitions from MPI_Pready on). MPI (or, through shared memory, the
// peer) may read or write that memory at any time meanwhile, so no deferred transfer may
// protect a page of it: a receive into it is not deferred (`owned_by_request`), a send
// from it is sent from a copy when MPI may write it. Both MPIs run programs that receive
// into a buffer their own pending send still reads (strictly erroneous); without this the
// protection made MPI fault and the job abort. docs/overlap-run.md, "Memory the program's
// requests hold".
//
// The same table counts the program's requests outstanding, for which the progress
// engine pokes MPI's own progress (issue 25: the program's own Isend/Irecv and MPI's own
// nonblocking collectives move while the program computes; the engine never touches the
// requests themselves).
//
// Every nonblocking call and every completion passes through here, so the table is flat
// (open addressing, the spans of a request inline) behind a spin lock held for a few
// dozen instructions: no allocation per request.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "intercept/runtime/footprint.hpp"
#include "intercept/runtime/wait_window.hpp"

namespace overlap::intercept {

class ProgramRequests {
 public:
  // A request as seen before a call that may complete it: what happens to it afterwards
  // must not touch a later request MPI gave the same handle (another thread's, meanwhile).
  struct Seen {
    int index = 0;
    MPI_Request request = MPI_REQUEST_NULL;
    std::uint64_t serial = 0;
  };
  // A fixed number of them inline, as a completion call lists them (no allocation for the
  // usual few; nested calls, e.g. from an error handler, each have their own).
  class SeenList {
   public:
    void clear() { n_ = 0, timed_ = false, more_.clear(); }
    // Some request seen has a wait window: the completing call notes when it started.
    bool timed() const { return timed_; }
    void mark_timed() { timed_ = true; }
    void push(const Seen& s) {
      if (n_ < kInline)
        inline_[n_++] = s;
      else
        more_.push_back(s);
    }
    bool empty() const { return n_ == 0; }
    template <class F>
    void for_each(F f) const {
      for (int i = 0; i < n_; ++i) f(inline_[i]);
      for (const Seen& s : more_) f(s);
    }

   private:
    static constexpr int kInline = 8;
    Seen inline_[kInline];
    int n_ = 0;
    bool timed_ = false;
    std::vector<Seen> more_;
  };
  // A partitioned send's buffer: partition p is `count` elements of a type with these
  // extents at buf + p * count * extent.
  struct Partitions {
    std::uintptr_t buf = 0;
    std::int64_t count = 0;
    TypeExtent type;
  };

  ProgramRequests();

  // `request` (just returned by MPI) holds `spans`: from now on until it completes, or,
  // when `persistent`, while it is active. `unknown`: its memory cannot be told from the
  // call's arguments; while it holds memory no page may be protected. A request that holds
  // nothing is tracked all the same (it is outstanding); any request replaces what an
  // earlier one with this handle left.
  // `counted` false: never outstanding (the engine must not drive MPI for it: a reduction
  // with the program's own operation under less than MPI_THREAD_MULTIPLE).
  // `window`: a nonblocking collective's (wait_window.hpp): the call that completes the
  // request adds the time from now to its own start there.
  void add(MPI_Request request, std::span<const Span> spans, bool unknown, bool persistent,
           bool counted = true, WaitWindow* window = nullptr);
  // A partitioned send: while active it holds the partitions readied so far (their hull).
  void add_partitioned_send(MPI_Request request, const Partitions& partitions);
  // MPI_Start(all) started it: it holds its memory (a partitioned send: nothing yet).
  void started(MPI_Request request);
  // MPI_Pready* of partitions first..last of an active partitioned send.
  void readied(MPI_Request request, std::int64_t first, std::int64_t last);

  // The tracked requests among requests[0, n), before a call that may complete them.
  void seen(int n, const MPI_Request* requests, SeenList& out) const;
  // After that call: a request MPI freed (its handle is MPI_REQUEST_NULL now) is forgotten;
  // a persistent one the call completed (`done(index)`) holds nothing until started again.
  // `called_ns`: when the call started (wait_window_now_ns), for the requests with a wait
  // window (0 when seen.timed() was false).
  template <class Done>
  void after_completion(const SeenList& seen, const MPI_Request* requests, Done done,
                        std::uint64_t called_ns = 0) {
    Guard hold(*this);  // once for all of them
    seen.for_each([&](const Seen& s) {
      Entry* e = find(s.request);
      if (e == nullptr || e->serial != s.serial) return;
      if (requests[s.index] == MPI_REQUEST_NULL) {
        if (e->window != nullptr && called_ns != 0 && called_ns >= e->returned_ns)
          e->window->add(called_ns - e->returned_ns);
        erase(e);
      } else if (done(s.index))
        set_active(*e, false);
    });
  }
  // The serial of a tracked request (nullopt: not tracked), taken before MPI_Request_free.
  std::optional<std::uint64_t> serial_of(MPI_Request request) const;
  // After MPI_Request_free: a request that holds nothing is forgotten; an active one keeps
  // its memory (MPI completes it later, when the program cannot know) until MPI gives its
  // handle to another request.
  void freed(MPI_Request request, std::uint64_t serial);
  // Whether the program's requests hold any byte of [lo, hi): any request when
  // `writers_only` is false, else only those MPI may write into.
  bool holds(std::uintptr_t lo, std::uintptr_t hi, bool writers_only) const;
  bool any() const { return live_.load(std::memory_order_acquire) > 0; }

  // The program's requests outstanding now: active and not freed (the engine pokes MPI's
  // progress while there are any, ProgressDriver::follow_program). Every request is
  // tracked for this, also those that hold no memory (an MPI_Ibarrier, a zero count).
  const std::atomic<int>& outstanding() const { return outstanding_; }
  // True once after the count went from none to some or back (the caller then brings the
  // engine's hold in line; a change by another thread meanwhile is seen by its own call).
  bool take_turn() { return turned_.exchange(false, std::memory_order_acq_rel); }
  // Requests tracked since MPI_Init (the report's figure).
  std::uint64_t tracked() const { return next_serial_ - 1; }

 private:
  // One slot per request, small: the usual request holds one span (a point-to-point
  // buffer). What few requests need beyond it (more spans: collectives; a partitioned
  // send's partitions) lives in `extra_`, keyed by the same handle.
  struct Entry {
    MPI_Request request = MPI_REQUEST_NULL;  // empty slot: MPI_REQUEST_NULL
    std::uint64_t serial = 0;
    Span span;  // what it holds while active (the first of its spans)
    bool unknown = false, persistent = false, active = false, extra = false;
    bool freed = false;             // MPI_Request_free'd while active: MPI completes it unseen
    bool quiet = false;             // never counted as outstanding (add's `counted` false)
    WaitWindow* window = nullptr;   // a nonblocking collective's, where its wait is timed
    std::uint64_t returned_ns = 0;  // when its call returned (with `window`)
  };
  struct Extra {
    MPI_Request request = MPI_REQUEST_NULL;
    std::uint64_t serial = 0;
    std::vector<Span> spans;  // beyond `span`
    bool partitioned = false;
    Partitions partitions;
    Span readied;  // a partitioned send: the hull of the readied partitions
  };
  Extra* extra_of(const Entry& e);  // lock held
  const Extra* extra_of(const Entry& e) const;
  void insert(Entry entry, Extra* extra);  // lock held
  Entry* find(MPI_Request request);        // lock held
  const Entry* find(MPI_Request request) const;
  void erase(Entry* e);  // lock held
  void set_active(Entry& e, bool active);
  void count_outstanding(int delta);  // lock held
  void resize(std::size_t capacity);  // lock held
  std::size_t slot_of(MPI_Request request) const;
  // The table's spin lock, held for a few dozen instructions and no system call.
  class Guard {
   public:
    explicit Guard(const ProgramRequests& t);
    ~Guard() { t_.lock_.clear(std::memory_order_release); }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    const ProgramRequests& t_;
  };

  mutable std::atomic_flag lock_ = ATOMIC_FLAG_INIT;
  std::vector<Entry> slots_;
  std::vector<Extra> extras_;  // few: searched by handle
  std::size_t size_ = 0;
  int unknown_active_ = 0;
  std::uint64_t next_serial_ = 1;
  std::atomic<int> live_{0};
  std::atomic<int> outstanding_{0};  // written under the lock
  std::atomic<bool> turned_{false};
};

ProgramRequests& program_requests();

// While the calling thread records the footprint of an interposed call that returned a
// request (kinds FENCE_REQ and EXPOSE_REQ of mpi_functions.def, after MPI accepted it).
void begin_request_footprint();
// The footprint kept, recorded under *request when the call succeeded.
void end_request_footprint(int rc, const MPI_Request* request, bool persistent);
// Whether this thread records a footprint now, and where it goes (fence_calls.cpp).
struct FootprintRecord {
  bool on = false;
  bool unknown = false;
  bool quiet = false;  // a user-defined operation (note_op): not counted as outstanding
  std::vector<Span> spans;
};
FootprintRecord& request_footprint();

}  // namespace overlap::intercept
