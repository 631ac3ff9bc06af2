#include "collectives/comm_context.hpp"

#include <mutex>
#include <vector>

#include "collectives/algorithms.hpp"

namespace overlap::collectives {
namespace {

std::mutex contexts_mu;
int keyval = MPI_KEYVAL_INVALID;                   // guarded by contexts_mu
std::vector<std::weak_ptr<CommContext>> contexts;  // guarded by contexts_mu

int delete_attr(MPI_Comm, int, void* value, void*) {
  delete static_cast<std::shared_ptr<CommContext>*>(value);
  return MPI_SUCCESS;
}

}  // namespace

CommContext::~CommContext() { release(); }

void CommContext::release() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (idup_ != MPI_REQUEST_NULL) MPI_Wait(&idup_, MPI_STATUS_IGNORE);
  if (dup_ != MPI_COMM_NULL) MPI_Comm_free(&dup_);
  released_ = true;
}

bool CommContext::ready() {
  if (ready_.load(std::memory_order_acquire)) return true;
  int done = 0;
  MPI_Test(&idup_, &done, MPI_STATUS_IGNORE);
  if (!done) return false;
  // A failed send inside a collective cannot be handed back to anyone: abort with MPI's
  // error string rather than leave the application waiting forever.
  MPI_Comm_set_errhandler(dup_, MPI_ERRORS_ARE_FATAL);
  ready_.store(true, std::memory_order_release);
  return true;
}

int CommContext::next_tag_base() {
  const std::uint32_t seq = sequence_.fetch_add(1, std::memory_order_relaxed);
  return static_cast<int>(seq % static_cast<std::uint32_t>(ranges_)) * kTagsPerCollective;
}

std::shared_ptr<CommContext> context_for(MPI_Comm comm, std::string& error) {
  std::lock_guard lock(contexts_mu);
  if (keyval == MPI_KEYVAL_INVALID)
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_attr, &keyval, nullptr);
  void* value = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm, keyval, &value, &found);
  if (found) {
    auto cached = *static_cast<std::shared_ptr<CommContext>*>(value);
    if (!cached->released()) return cached;
    // Left over from before OVX_Finalize: replaced below (set_attr deletes the old one).
  }

  int inter = 0;
  MPI_Comm_test_inter(comm, &inter);
  if (inter) {
    error = "intercommunicators are not supported";
    return nullptr;
  }
  void* ub = nullptr;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &found);
  const long tag_ub = found ? *static_cast<int*>(ub) : 32767;
  auto ctx = std::make_shared<CommContext>();
  ctx->ranges_ = static_cast<int>((tag_ub + 1) / kTagsPerCollective);
  if (ctx->ranges_ < 2) {
    error = "MPI_TAG_UB=" + std::to_string(tag_ub) + " leaves too few tags (need at least " +
            std::to_string(2 * kTagsPerCollective) + ")";
    return nullptr;
  }
  MPI_Comm_rank(comm, &ctx->rank_);
  MPI_Comm_size(comm, &ctx->size_);
  MPI_Comm_idup(comm, &ctx->dup_, &ctx->idup_);
  MPI_Comm_set_attr(comm, keyval, new std::shared_ptr<CommContext>(ctx));
  // Communicators the application freed leave expired entries; drop them here so the
  // list stays as long as the live communicators.
  std::erase_if(contexts, [](const std::weak_ptr<CommContext>& w) { return w.expired(); });
  contexts.push_back(ctx);
  return ctx;
}

void release_all_contexts() {
  std::lock_guard lock(contexts_mu);
  for (auto& weak : contexts)
    if (auto ctx = weak.lock()) ctx->release();
  contexts.clear();
}

}  // namespace overlap::collectives
