#include "collectives/comm_context.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

#include "collectives/algorithms.hpp"
#include "progress/engine_runtime.hpp"
#include "progress/mpi_errors.hpp"

namespace overlap::collectives {
namespace {

struct Registry {
  std::mutex mu;
  int keyval = MPI_KEYVAL_INVALID;                     // guarded by mu
  std::vector<std::shared_ptr<CommContext>> contexts;  // guarded by mu; live duplicates
};
// Never destroyed: attribute callbacks may run during static destruction.
Registry& registry() {
  static Registry* r = [] {
    // Registered once, whichever layer started the engine.
    progress::add_sweeper(sweep_contexts);
    progress::add_finalize_hook(release_all_contexts);
    return new Registry;
  }();
  return *r;
}

// Called by MPI when the application frees its communicator (or MPI_Finalize frees
// MPI_COMM_WORLD's attributes). The duplicate itself goes at a safe point; only a
// duplicate still being made is finished here, while the application's communicator
// still exists: Open MPI 4.1 crashes when a communicator is freed before an
// MPI_Comm_idup of it completed (checked; MPI says pending operations complete normally).
// Not during MPI_Finalize: nothing may wait there.
int delete_attr(MPI_Comm, int, void* value, void*) {
  auto* ctx = static_cast<std::shared_ptr<CommContext>*>(value);
  if (!progress::mpi_finalizing()) (*ctx)->finish_duplicate();
  (*ctx)->mark_user_freed();
  delete ctx;
  progress::request_sweep();
  return MPI_SUCCESS;
}

// OVERLAP_TAG_RANGES caps the number of tag ranges (testing and debugging: with few
// ranges, many collectives in flight reuse them). Returns false with `error` on a bad value.
bool capped_ranges(int& ranges, std::string& error) {
  const char* text = std::getenv("OVERLAP_TAG_RANGES");
  if (text == nullptr || *text == '\0') return true;
  const std::string_view s(text);
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || v < 1 || v > ranges) {
    error = std::string("OVERLAP_TAG_RANGES='") + text + "' is not an integer in 1.." +
            std::to_string(ranges);
    return false;
  }
  ranges = v;
  return true;
}

std::string mpi_error_text(int rc) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  PMPI_Error_string(rc, text, &len);
  return std::string(text, static_cast<std::size_t>(len));
}

}  // namespace

int CommContext::tag_base(std::uint64_t seq) const {
  return static_cast<int>(seq % static_cast<std::uint64_t>(ranges_)) * kTagsPerCollective;
}

// Under MPI_ERRORS_RETURN on the application's communicator for the duration: a failed
// duplication is MPI's error on that communicator (MPICH raises it from MPI_Test), and it
// is ours to report, naming the cause, to every collective waiting for it.
bool CommContext::complete_idup_locked(bool wait) {
  holder_.store(std::this_thread::get_id());
  const MPI_Comm app = app_;
  MPI_Errhandler saved = MPI_ERRHANDLER_NULL;
  if (app != MPI_COMM_NULL) {
    PMPI_Comm_get_errhandler(app, &saved);
    PMPI_Comm_set_errhandler(app, MPI_ERRORS_RETURN);
  }
  int done = 0;
  const int rc =
      wait ? PMPI_Wait(&idup_, MPI_STATUS_IGNORE) : PMPI_Test(&idup_, &done, MPI_STATUS_IGNORE);
  // MPICH may free the application's communicator inside our own test (delete_attr then
  // cleared app_): its handler went with it.
  if (app != MPI_COMM_NULL && app_ != MPI_COMM_NULL) {
    // Restore only our own setting: an application thread may have set its handler since.
    MPI_Errhandler now = MPI_ERRHANDLER_NULL;
    PMPI_Comm_get_errhandler(app, &now);
    if (now == MPI_ERRORS_RETURN) PMPI_Comm_set_errhandler(app, saved);
    if (now != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&now);
  }
  if (saved != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&saved);
  if (rc != MPI_SUCCESS) {
    record_failure(rc);
    done = 1;
  } else if (wait || done) {
    // A failed send inside a collective cannot be handed back to anyone: abort with MPI's
    // error string rather than leave the application waiting forever.
    PMPI_Comm_set_errhandler(dup_, MPI_ERRORS_ARE_FATAL);
  }
  holder_.store(std::thread::id());
  return done != 0;
}

#if defined(MPICH)
constexpr const char* kLimitHint =
    " (MPICH has about 2048 communicator context ids, and liboverlap's duplicates take one "
    "more per communicator it is used on)";
#else
constexpr const char* kLimitHint = "";
#endif

void CommContext::record_failure(int rc) {
  failure_ =
      "the hidden duplicate of the communicator (MPI_Comm_idup, one per communicator "
      "liboverlap is used on) could not be made: " +
      mpi_error_text(rc) + kLimitHint;
  // The duplicate is unusable: never posted on, never freed.
  dup_ = MPI_COMM_NULL;
  idup_ = MPI_REQUEST_NULL;
  failure_code_ = progress::report_error(app_, progress::ErrorKind::other, failure_);
  failed_.store(true, std::memory_order_release);
}

void CommContext::mark_user_freed() {
  if (holder_.load() == std::this_thread::get_id()) {
    app_ = MPI_COMM_NULL;  // inside our own test of the duplication (MPICH)
  } else {
    std::lock_guard lock(idup_mu_);
    app_ = MPI_COMM_NULL;
  }
  user_freed_.store(true);
}

void CommContext::finish_duplicate() {
  // MPICH runs the delete callback when the communicator really goes, which can be when
  // our own test completes the duplicate (it held the last reference): nothing to wait
  // for then, and idup_mu_ is ours already.
  if (holder_.load() == std::this_thread::get_id()) return;
  std::lock_guard lock(idup_mu_);
  if (ready_.load(std::memory_order_acquire) || idup_ == MPI_REQUEST_NULL) return;
  complete_idup_locked(true);
  ready_.store(true, std::memory_order_release);
}

bool CommContext::ready() {
  if (ready_.load(std::memory_order_acquire)) return true;
  if (holder_.load() == std::this_thread::get_id()) return false;  // re-entered from our test
  std::unique_lock lock(idup_mu_, std::try_to_lock);
  if (!lock.owns_lock()) return false;
  if (ready_.load(std::memory_order_acquire)) return true;
  if (!complete_idup_locked(false)) return false;
  ready_.store(true, std::memory_order_release);
  return true;
}

namespace {
// Erases `seq` from a sorted container if it is there.
template <class C>
void erase_sorted(C& c, std::uint64_t seq) {
  const auto it = std::lower_bound(c.begin(), c.end(), seq);
  if (it != c.end() && *it == seq) c.erase(it);
}
}  // namespace

void CommContext::submitted(std::uint64_t seq) {
  std::lock_guard lock(mu_);
  // Threads may submit out of order; most submissions append.
  // (push_back, not insert at end(): libstdc++ inserts into an empty deque at the front,
  // which takes a new block each time.)
  if (waiting_.empty() || waiting_.back() < seq) return waiting_.push_back(seq);
  auto at = waiting_.end();
  while (at != waiting_.begin() && *(at - 1) > seq) --at;
  waiting_.insert(at, seq);
}

bool CommContext::try_start(std::uint64_t seq) {
  if (!ready() || failed()) return false;
  std::lock_guard lock(mu_);
  if (waiting_.empty() || waiting_.front() != seq) return false;  // an earlier one first
  const auto ranges = static_cast<std::uint64_t>(ranges_);
  if (seq >= ranges && std::binary_search(running_.begin(), running_.end(), seq - ranges))
    return false;  // its tag range is still in use
  if (running_.size() >= kMaxRunning) return false;
  waiting_.pop_front();
  // Started in sequence order, so this appends.
  running_.insert(std::upper_bound(running_.begin(), running_.end(), seq), seq);
  return true;
}

void CommContext::completed(std::uint64_t seq) {
  bool idle = false;
  {
    std::lock_guard lock(mu_);
    erase_sorted(waiting_, seq);
    erase_sorted(running_, seq);
    idle = waiting_.empty() && running_.empty();
  }
  // The application freed its communicator meanwhile: the duplicate may go now.
  if (idle && user_freed()) progress::request_sweep();
}

std::size_t CommContext::in_flight() const {
  std::lock_guard lock(mu_);
  return waiting_.size() + running_.size();
}

bool CommContext::release() {
  if (released_.load()) return true;
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (finalized) return true;
  {
    std::lock_guard lock(idup_mu_);
    if (idup_ != MPI_REQUEST_NULL && !complete_idup_locked(false)) return false;
  }
  if (dup_ != MPI_COMM_NULL) PMPI_Comm_free(&dup_);
  released_.store(true);
  return true;
}

// Whether every rank of `comm` is in MPI_COMM_WORLD (local: group operations only).
static bool inside_world(MPI_Comm comm) {
  MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  PMPI_Comm_group(comm, &group);
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  int n = 0;
  PMPI_Group_size(group, &n);
  std::vector<int> ranks(static_cast<std::size_t>(n)), in_world(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) ranks[static_cast<std::size_t>(i)] = i;
  PMPI_Group_translate_ranks(group, n, ranks.data(), world, in_world.data());
  PMPI_Group_free(&group);
  PMPI_Group_free(&world);
  return std::none_of(in_world.begin(), in_world.end(), [](int r) { return r == MPI_UNDEFINED; });
}

// A new context for `comm`, its duplicate `made` (ready) or, when that is MPI_COMM_NULL,
// one made with MPI_Comm_idup.
std::shared_ptr<CommContext> make_context(MPI_Comm comm, MPI_Comm made, std::string& error) {
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) {
    error = "intercommunicators are not supported";
    return nullptr;
  }
  int found = 0;
  void* ub = nullptr;
  PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &found);
  const long tag_ub = found ? *static_cast<int*>(ub) : 32767;
  auto ctx = std::make_shared<CommContext>();
  ctx->ranges_ = static_cast<int>((tag_ub + 1) / kTagsPerCollective);
  if (ctx->ranges_ < 1) {
    error = "MPI_TAG_UB=" + std::to_string(tag_ub) + " leaves too few tags (need at least " +
            std::to_string(kTagsPerCollective) + ")";
    return nullptr;
  }
  if (!capped_ranges(ctx->ranges_, error)) return nullptr;
  PMPI_Comm_rank(comm, &ctx->rank_);
  PMPI_Comm_size(comm, &ctx->size_);
  ctx->within_world_ = inside_world(comm);
  if (made != MPI_COMM_NULL) {
    ctx->dup_ = made;
    PMPI_Comm_set_errhandler(made, MPI_ERRORS_ARE_FATAL);
    ctx->ready_.store(true, std::memory_order_release);
  } else if (ctx->size_ == 1) {
    // No duplicate: no algorithm sends a message on one process (algorithms_test,
    // OneRankPostsNothing). Duplicating would not be harmless there: MPICH 4.0's
    // MPI_Comm_idup of a one-process communicator can retry its context-id agreement
    // forever inside the call, under MPICH's lock, while another thread's MPI_Comm_split
    // holds the context-id mask (docs/results/idup-self-2026-11-30); and Open MPI 4.1's
    // blocking MPI_Comm_dup of one waits behind any pending context-id agreement of a
    // communicator with a lower id, e.g. our MPI_Comm_idup of MPI_COMM_WORLD that the
    // other ranks have not joined yet.
    ctx->ready_.store(true, std::memory_order_release);
  } else if (const int rc = PMPI_Comm_idup(comm, &ctx->dup_, &ctx->idup_); rc != MPI_SUCCESS) {
    error = "MPI_Comm_idup of the communicator failed: " + mpi_error_text(rc);
    return nullptr;
  }
  ctx->app_ = comm;
  return ctx;
}

std::shared_ptr<CommContext> context_for(MPI_Comm comm, std::string& error) {
  return context_for(comm, MPI_COMM_NULL, error);
}

std::shared_ptr<CommContext> context_for(MPI_Comm comm, MPI_Comm made, std::string& error) {
  Registry& reg = registry();
  std::lock_guard lock(reg.mu);
  if (reg.keyval == MPI_KEYVAL_INVALID)
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_attr, &reg.keyval, nullptr);
  void* value = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, reg.keyval, &value, &found);
  if (found) {
    if (made != MPI_COMM_NULL) {
      error = "the communicator has a duplicate already";
      return nullptr;
    }
    return *static_cast<std::shared_ptr<CommContext>*>(value);
  }
  auto ctx = make_context(comm, made, error);
  if (!ctx) return nullptr;
  PMPI_Comm_set_attr(comm, reg.keyval, new std::shared_ptr<CommContext>(ctx));
  reg.contexts.push_back(ctx);
  return ctx;
}

std::size_t contexts_alive() {
  Registry& reg = registry();
  std::lock_guard lock(reg.mu);
  return reg.contexts.size();
}

void drop_context(MPI_Comm comm) {
  int keyval = MPI_KEYVAL_INVALID;
  {
    std::lock_guard lock(registry().mu);
    keyval = registry().keyval;
  }
  // The delete callback marks the context as the program's freeing would; its duplicate
  // goes at the next safe point.
  if (keyval != MPI_KEYVAL_INVALID) PMPI_Comm_delete_attr(comm, keyval);
}

void sweep_contexts() {
  Registry& reg = registry();
  std::lock_guard lock(reg.mu);
  bool pending = false;
  std::erase_if(reg.contexts, [&](const std::shared_ptr<CommContext>& ctx) {
    if (!ctx->user_freed() || ctx->in_flight() > 0) return false;
    if (ctx->release()) return true;
    pending = true;  // still being duplicated: look again at the next safe point
    return false;
  });
  if (pending) progress::request_sweep();
}

void release_all_contexts() {
  Registry& reg = registry();
  std::lock_guard lock(reg.mu);
  // A duplicate still being made gets a little time (each test progresses MPI; every rank
  // that called the collective is in MPI_Finalize too) but no wait without end: only an
  // erroneous program (a rank that never joined the communicator's first collective)
  // leaves one for good, and that must not hang MPI_Finalize. Such a one is left to MPI.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (;;) {
    std::erase_if(reg.contexts,
                  [](const std::shared_ptr<CommContext>& ctx) { return ctx->release(); });
    if (reg.contexts.empty() || std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

}  // namespace overlap::collectives
