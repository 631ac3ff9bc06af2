#include "partitioned/partitioned_request.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>

#include "partitioned/channel_pool.hpp"

#include "progress/mpi_errors.hpp"
#include "progress/mpi_transport.hpp"

namespace overlap::partitioned {
namespace {

constexpr std::uint64_t kMagic = 0x4f56585061727432ULL;  // "OVXPart2"

// Below MPI_THREAD_MULTIPLE, posts from several Pready threads take turns.
std::mutex& post_mutex() {
  static auto* m = new std::mutex;
  return *m;
}
bool thread_multiple() {
  static const bool multiple = [] {
    int provided = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&provided);
    return provided >= MPI_THREAD_MULTIPLE;
  }();
  return multiple;
}

ChannelPool& channel_pool() {
  static auto* pool = new ChannelPool;  // never destroyed: requests may outlive statics
  return *pool;
}

}  // namespace

PartitionedRequest::PartitionedRequest(const RequestArgs& args, progress::ProgressEngine& engine)
    : args_(args), engine_(engine) {}

PartitionedRequest::~PartitionedRequest() {
  if (owned_channel_) channel_pool().release(*owned_channel_);
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (args_.packed_type != MPI_DATATYPE_NULL && finalized == 0) PMPI_Type_free(&args_.packed_type);
}

int PartitionedRequest::pack_partition(std::uint32_t p) {
  std::unique_lock lock(post_mutex(), std::defer_lock);
  if (!thread_multiple()) lock.lock();
  const auto* from = static_cast<const std::byte*>(args_.user_buf) +
                     static_cast<MPI_Aint>(p) * args_.count * args_.extent;
  auto* to = staging_.get() + p * args_.partition_bytes;
#if MPI_VERSION >= 4
  MPI_Count position = 0;
  return PMPI_Pack_c(from, args_.count, args_.packed_type, to,
                     static_cast<MPI_Count>(args_.partition_bytes), &position, args_.comm);
#else
  int position = 0;
  return PMPI_Pack(from, static_cast<int>(args_.count), args_.packed_type, to,
                   static_cast<int>(args_.partition_bytes), &position, args_.comm);
#endif
}

void PartitionedRequest::bytes_arrived(std::uint64_t lo, std::uint64_t hi) {
  const std::uint64_t rp = args_.partition_bytes;
  if (!packed() || rp == 0 || lo >= hi) return;
  for (std::uint64_t q = lo / rp; q < args_.partitions && q * rp < hi; ++q) {
    const std::uint64_t overlap = std::min(hi, (q + 1) * rp) - std::max(lo, q * rp);
    if (unpacked_left_[q].fetch_sub(overlap, std::memory_order_acq_rel) != overlap) continue;
    // This arrival completed partition q: into the program's buffer. Only this thread
    // unpacks q, and the program reads it only once the arrival is published.
    std::unique_lock lock(post_mutex(), std::defer_lock);
    if (!thread_multiple()) lock.lock();
    auto* to = static_cast<std::byte*>(args_.user_buf) +
               static_cast<MPI_Aint>(q) * args_.count * args_.extent;
#if MPI_VERSION >= 4
    MPI_Count position = 0;
    PMPI_Unpack_c(staging_.get() + q * rp, static_cast<MPI_Count>(rp), &position, to, args_.count,
                  args_.packed_type, args_.comm);
#else
    int position = 0;
    PMPI_Unpack(staging_.get() + q * rp, static_cast<int>(rp), &position, to,
                static_cast<int>(args_.count), args_.packed_type, args_.comm);
#endif
  }
}

std::shared_ptr<PartitionedRequest> PartitionedRequest::create(const RequestArgs& args,
                                                               progress::ProgressEngine& engine,
                                                               std::string& error) {
  auto r = std::make_shared<PartitionedRequest>(args, engine);
  if (r->packed()) {
    const std::uint64_t total = std::uint64_t{args.partitions} * args.partition_bytes;
    r->staging_ = std::make_unique_for_overwrite<std::byte[]>(total);
    r->args_.buf = r->staging_.get();
    if (args.side == Side::recv)
      r->unpacked_left_ = std::make_unique<std::atomic<std::uint64_t>[]>(args.partitions);
  }
  if (args.side == Side::send) {
    r->layout_ = make_layout(args.partitions, args.partition_bytes, args.aggregation);
    if (args.aggregation_default && !r->layout_.adaptive &&
        r->layout_.chunks() > args.tags.max_chunks) {
      // More partitions than data tags: as few partitions per message as fit (the receiver
      // learns the layout from the handshake).
      const AggregationPolicy grouped{
          Aggregation::by_count,
          (args.partitions + args.tags.max_chunks - 1) / args.tags.max_chunks};
      r->args_.aggregation = grouped;
      r->layout_ = make_layout(args.partitions, args.partition_bytes, grouped);
    }
    // Adaptive uses two tags whatever the partition count; fixed chunks one tag each.
    if (!r->layout_.adaptive && r->layout_.chunks() > args.tags.max_chunks) {
      error = "partitions=" + std::to_string(args.partitions) + " with aggregation " +
              aggregation_name(args.aggregation) + " makes " + std::to_string(r->layout_.chunks()) +
              " messages per epoch, more than the " + std::to_string(args.tags.max_chunks) +
              " liboverlap's tag space allows; aggregate (MPI_Info key overlap_aggregation, "
              "e.g. count:K, or adaptive)";
      return nullptr;
    }
#if MPI_VERSION < 4  // with MPI 4 the large-count calls post any size
    if (r->layout_.bytes(0) > static_cast<std::uint64_t>(INT_MAX)) {
      error = "a message of " + std::to_string(r->layout_.bytes(0)) +
              " bytes (partition bytes x partitions per message) exceeds " +
              std::to_string(INT_MAX) + " bytes";
      return nullptr;
    }
#endif
    r->ready_ = std::make_unique<std::atomic<std::uint8_t>[]>(args.partitions);
    if (r->layout_.adaptive)
      r->batcher_ = std::make_unique<AdaptiveBatcher>(args.partitions, args.partition_bytes,
                                                      args.aggregation.value);
    else
      r->pending_ = std::make_unique<std::atomic<std::uint32_t>[]>(r->layout_.chunks());
    r->owned_channel_ = channel_pool().acquire(args.tags.channels);
    if (!r->owned_channel_) {
      error = "all " + std::to_string(args.tags.channels) +
              " wire channels are taken by live partitioned send requests (allowed: at most " +
              std::to_string(args.tags.channels) +
              " at once in a process with this MPI_TAG_UB; free some first)";
      return nullptr;
    }
    r->channel_ = *r->owned_channel_;
    r->layout_known_.store(true, std::memory_order_release);
  }
  if (args.peer == MPI_PROC_NULL) return r;
  error = r->post_handshake();
  return error.empty() ? r : nullptr;
}

std::string PartitionedRequest::post_handshake() {
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = MPI_SUCCESS;
  const int tag = args_.tags.handshake(args_.tag);
  if (args_.side == Side::send) {
    handshake_[0] = kMagic;
    handshake_[1] = layout_.partitions;
    handshake_[2] = layout_.partition_bytes;
    handshake_[3] = layout_.group;
    handshake_[4] = channel_;
    handshake_[5] = layout_.adaptive ? 1 : 0;
    rc = PMPI_Isend(handshake_, sizeof handshake_, MPI_BYTE, args_.peer, tag, args_.comm, &req);
  } else {
    rc = PMPI_Irecv(handshake_, sizeof handshake_, MPI_BYTE, args_.peer, tag, args_.comm, &req);
  }
  if (rc != MPI_SUCCESS)
    return "could not post the handshake with rank " + std::to_string(args_.peer);
  // The watch keeps this request alive until the handshake finished, even if freed.
  watch(req, [self = shared_from_this()](const MPI_Status& st) {
    if (self->args_.side == Side::recv) self->on_handshake(st.MPI_ERROR);
  });
  return "";
}

std::string PartitionedRequest::start(MPI_Request* request) {
  if (active_.load(std::memory_order_acquire))
    return "the request's previous epoch is still active (complete it with MPI_Wait/MPI_Test "
           "before the next OVX_Start)";
  auto epoch = std::make_shared<progress::ExternalCompletion>();
  if (progress::start_external_request(engine_, epoch, request) != MPI_SUCCESS)
    return "could not create the epoch's generalized request";
  epoch_ = epoch;
  ever_started_.store(true, std::memory_order_release);
  if (args_.side == Side::send) {
    for (std::uint32_t p = 0; p < args_.partitions; ++p)
      ready_[p].store(0, std::memory_order_relaxed);
    if (layout_.adaptive) {
      batcher_->reset();
    } else {
      for (std::uint32_t c = 0; c < layout_.chunks(); ++c)
        pending_[c].store(layout_.partitions_in(c), std::memory_order_relaxed);
    }
    chunks_left_.store(layout_.chunks(), std::memory_order_relaxed);
    epoch_error_.store(MPI_SUCCESS, std::memory_order_relaxed);
    active_.store(true, std::memory_order_release);  // publishes the resets to Pready threads
    return "";
  }
  // Decide under the lock (the handshake may arrive in a pass right now), call MPI after
  // it: no MPI call is ever made holding mu_.
  enum class Next { wait_handshake, post, fail, done } next = Next::wait_handshake;
  {
    std::lock_guard lock(mu_);
    active_.store(true, std::memory_order_release);
    epoch_posted_ = false;
    if (args_.peer == MPI_PROC_NULL) {
      next = Next::done;
    } else if (!handshake_error_.empty()) {
      next = Next::fail;
    } else if (layout_known_.load(std::memory_order_acquire)) {
      prepare_receives_locked();
      next = Next::post;
    }
  }
  if (next == Next::done) complete_epoch(MPI_SUCCESS);
  if (next == Next::fail) complete_epoch(progress::error_class(progress::ErrorKind::argument));
  if (next == Next::post) post_receives();
  return "";
}

std::string PartitionedRequest::pready(int partition) {
  std::string why = mark_ready(partition);
  if (why.empty() && adaptive_sender()) post_ready_runs();
  return why;
}

std::string PartitionedRequest::pready_range(int low, int high) {
  std::string why;
  int marked = 0;
  for (int p = low; p <= high && why.empty(); ++p) {
    why = mark_ready(p);
    if (why.empty()) ++marked;
  }
  if (marked > 0 && adaptive_sender()) post_ready_runs();
  return why;
}

std::string PartitionedRequest::pready_list(std::span<const int> partitions) {
  std::string why;
  int marked = 0;
  for (std::size_t i = 0; i < partitions.size() && why.empty(); ++i) {
    why = mark_ready(partitions[i]);
    if (why.empty()) ++marked;
  }
  if (marked > 0 && adaptive_sender()) post_ready_runs();
  return why;
}

std::string PartitionedRequest::mark_ready(int partition) {
  if (args_.side != Side::send)
    return "the request is a receive (OVX_Precv_init); Pready is for sends";
  if (!active_.load(std::memory_order_acquire))
    return "partition=" + std::to_string(partition) +
           ": the request has no active epoch (call OVX_Start first)";
  if (partition < 0 || static_cast<std::uint32_t>(partition) >= args_.partitions)
    return "partition=" + std::to_string(partition) + " is out of range (allowed: 0.." +
           std::to_string(args_.partitions - 1) + ")";
  if (ready_[partition].exchange(1, std::memory_order_acq_rel) != 0)
    return "partition=" + std::to_string(partition) + " was already marked ready in this epoch";
  if (packed()) {
    if (const int rc = pack_partition(static_cast<std::uint32_t>(partition)); rc != MPI_SUCCESS) {
      ready_[partition].store(0, std::memory_order_release);
      return "partition=" + std::to_string(partition) + " could not be packed (MPI error " +
             std::to_string(rc) + ")";
    }
  }
  if (layout_.adaptive) {
    batcher_->push(static_cast<std::uint32_t>(partition));
    return "";
  }
  const std::uint32_t c = layout_.chunk_of(static_cast<std::uint32_t>(partition));
  // The thread that readies a chunk's last partition posts it: no waiting for a progress
  // pass or for the application's next MPI call.
  if (pending_[c].fetch_sub(1, std::memory_order_acq_rel) == 1) post_chunk(c);
  return "";
}

int PartitionedRequest::post(Side side, const void* buf, std::uint64_t bytes, int tag,
                             MPI_Request* req) {
  std::unique_lock lock(post_mutex(), std::defer_lock);
  if (!thread_multiple()) lock.lock();
#if MPI_VERSION >= 4
  const auto count = static_cast<MPI_Count>(bytes);
  if (side == Side::send)
    return PMPI_Isend_c(buf, count, MPI_BYTE, args_.peer, tag, args_.comm, req);
  return PMPI_Irecv_c(const_cast<void*>(buf), count, MPI_BYTE, args_.peer, tag, args_.comm, req);
#else
  const int count = static_cast<int>(bytes);  // <= INT_MAX: checked at creation
  if (side == Side::send) return PMPI_Isend(buf, count, MPI_BYTE, args_.peer, tag, args_.comm, req);
  return PMPI_Irecv(const_cast<void*>(buf), count, MPI_BYTE, args_.peer, tag, args_.comm, req);
#endif
}

void PartitionedRequest::watch(MPI_Request req, std::function<void(const MPI_Status&)> done) {
  engine_.scheduler().watch(progress::mpi_request_tester(), progress::to_slot(req),
                            [callback = std::move(done)](const progress::RequestStatus& st) {
                              callback(progress::to_status(st));
                            });
}

void PartitionedRequest::post_chunk(std::uint32_t c) {
  if (args_.peer == MPI_PROC_NULL) {
    units_finished(1, MPI_SUCCESS);
    return;
  }
  const auto* data = static_cast<const std::byte*>(args_.buf) + layout_.offset(c);
  MPI_Request req = MPI_REQUEST_NULL;
  const int rc = post(Side::send, data, layout_.bytes(c), args_.tags.data(channel_, c), &req);
  // Under MPI_ERRORS_RETURN a failed post must end the epoch with its error, not hang it.
  if (rc != MPI_SUCCESS) {
    units_finished(1, rc);
    return;
  }
  watch(req, [self = shared_from_this()](const MPI_Status& st) {
    self->units_finished(1, st.MPI_ERROR);
  });
}

void PartitionedRequest::post_ready_runs() {
  // The epoch may complete, and the application free the request, while this thread is
  // still here after posting another thread's partition.
  const auto self = shared_from_this();
  batcher_->post_queued([this](std::span<const Run> runs) { post_runs(runs); });
}

void PartitionedRequest::post_runs(std::span<const Run> runs) {
  if (args_.peer == MPI_PROC_NULL) {
    for (const Run& r : runs) units_finished(r.count, MPI_SUCCESS);
    return;
  }
  auto words = std::make_shared<std::vector<std::uint32_t>>();
  for (const Run& r : runs) {
    words->push_back(r.first);
    words->push_back(r.count);
  }
  // The descriptor's send is part of the epoch until it completed (its runs' partitions
  // keep chunks_left_ above zero until then, so the epoch cannot complete before this).
  chunks_left_.fetch_add(1, std::memory_order_acq_rel);
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = post(Side::send, words->data(), words->size() * sizeof(std::uint32_t),
                args_.tags.adaptive_descriptor(channel_), &req);
  if (rc != MPI_SUCCESS) {
    units_finished(1, rc);
  } else {
    watch(req, [self = shared_from_this(), words](const MPI_Status& st) {
      self->units_finished(1, st.MPI_ERROR);
    });
  }
  // The data in the descriptor's order: the receiver posts its receives in that order on
  // the one data tag, so each run matches its own receive.
  for (const Run& r : runs) {
    const auto* data = static_cast<const std::byte*>(args_.buf) + r.first * layout_.partition_bytes;
    rc = post(Side::send, data, std::uint64_t{r.count} * layout_.partition_bytes,
              args_.tags.adaptive_data(channel_), &req);
    if (rc != MPI_SUCCESS) {
      units_finished(r.count, rc);
      continue;
    }
    watch(req, [self = shared_from_this(), r](const MPI_Status& st) {
      self->units_finished(r.count, st.MPI_ERROR);
    });
  }
}

void PartitionedRequest::prepare_receives_locked() {
  epoch_posted_ = true;
  if (layout_.adaptive) {
    claimed_.assign(layout_.partitions, 0);
    claimed_count_ = 0;
  }
  for (std::uint32_t c = 0; c < layout_.chunks(); ++c)
    arrived_[c].store(0, std::memory_order_relaxed);
  if (packed()) {
    for (std::uint32_t q = 0; q < args_.partitions; ++q)
      unpacked_left_[q].store(args_.partition_bytes, std::memory_order_relaxed);
  }
  epoch_error_.store(MPI_SUCCESS, std::memory_order_relaxed);
  chunks_left_.store(layout_.chunks(), std::memory_order_release);
}

void PartitionedRequest::post_receives() {
  if (layout_.adaptive) {
    post_descriptor_receive();
    return;
  }
  for (std::uint32_t c = 0; c < layout_.chunks(); ++c) {
    auto* data = static_cast<std::byte*>(args_.buf) + layout_.offset(c);
    MPI_Request req = MPI_REQUEST_NULL;
    const int rc = post(Side::recv, data, layout_.bytes(c), args_.tags.data(channel_, c), &req);
    if (rc != MPI_SUCCESS) {
      units_finished(1, rc);
      continue;
    }
    watch(req, [self = shared_from_this(), c](const MPI_Status& st) {
      if (st.MPI_ERROR == MPI_SUCCESS) {
        self->bytes_arrived(self->layout_.offset(c),
                            self->layout_.offset(c) + self->layout_.bytes(c));
        self->arrived_[c].store(1, std::memory_order_release);
      }
      self->units_finished(1, st.MPI_ERROR);
    });
  }
}

// Adaptive receiver: one descriptor receive at a time, each posted after the previous
// descriptor's runs, so descriptors and runs match in the order the sender posted them.
// Descriptors that already arrived (MPI holds them as unexpected messages) are taken at
// once, in a loop, rather than one per progress pass: a burst of batches must not be paced
// to the engine's pass rate.
void PartitionedRequest::post_descriptor_receive() {
  for (;;) {
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status status{};
    int flag = 0;
    int rc = post(Side::recv, descriptor_, sizeof descriptor_,
                  args_.tags.adaptive_descriptor(channel_), &req);
    // Not under post_mutex (as the engine's own tests): MPI_Test may run a progress pass
    // through MPI's hook, whose callbacks post.
    if (rc == MPI_SUCCESS) rc = PMPI_Test(&req, &flag, &status);
    if (rc != MPI_SUCCESS) {
      abandon_unclaimed(rc);
      return;
    }
    if (flag == 0) {
      watch(req, [self = shared_from_this()](const MPI_Status& st) {
        if (self->on_descriptor(st)) self->post_descriptor_receive();
      });
      return;
    }
    status.MPI_ERROR = MPI_SUCCESS;  // MPI_Test reports errors by its return code only
    if (!on_descriptor(status)) return;
  }
}

// Runs inside a progress pass or in OVX_Start (as on_handshake: MPI calls only to post
// receives). Returns true when the epoch expects more descriptors.
bool PartitionedRequest::on_descriptor(const MPI_Status& status) {
  if (status.MPI_ERROR != MPI_SUCCESS) {
    abandon_unclaimed(status.MPI_ERROR);
    return false;
  }
  int bytes = 0;
  PMPI_Get_count(&status, MPI_BYTE, &bytes);
  std::vector<Run> runs;
  std::string why;
  if (bytes < 0 || bytes % static_cast<int>(sizeof(std::uint32_t)) != 0) {
    why = "a descriptor of " + std::to_string(bytes) + " bytes is not a list of runs";
  } else {
    accept_descriptor(std::span<const std::uint32_t>(
                          descriptor_, static_cast<std::size_t>(bytes) / sizeof(std::uint32_t)),
                      layout_.partitions, layout_.partition_bytes, claimed_, runs, why);
  }
  if (!why.empty()) {
    // Only a message the application sent on liboverlap's tags gets here.
    std::fprintf(stderr, "liboverlap: partitioned receive from rank %d (tag %d): %s\n", args_.peer,
                 args_.tag, why.c_str());
    abandon_unclaimed(progress::error_class(progress::ErrorKind::argument));
    return false;
  }
  for (const Run& r : runs) claimed_count_ += r.count;
  // Decided before the runs' receives: once they complete the next epoch may start.
  const bool more = claimed_count_ < layout_.partitions;
  for (const Run& r : runs) post_run_receive(r);
  return more;
}

void PartitionedRequest::post_run_receive(Run r) {
  auto* data = static_cast<std::byte*>(args_.buf) + r.first * layout_.partition_bytes;
  MPI_Request req = MPI_REQUEST_NULL;
  const int rc = post(Side::recv, data, std::uint64_t{r.count} * layout_.partition_bytes,
                      args_.tags.adaptive_data(channel_), &req);
  if (rc != MPI_SUCCESS) {
    units_finished(r.count, rc);
    return;
  }
  watch(req, [self = shared_from_this(), r](const MPI_Status& st) {
    if (st.MPI_ERROR == MPI_SUCCESS) {
      const std::uint64_t pb = self->layout_.partition_bytes;
      self->bytes_arrived(r.first * pb, (std::uint64_t{r.first} + r.count) * pb);
      for (std::uint32_t p = r.first; p < r.first + r.count; ++p)
        self->arrived_[p].store(1, std::memory_order_release);
    }
    self->units_finished(r.count, st.MPI_ERROR);
  });
}

void PartitionedRequest::abandon_unclaimed(int error) {
  const std::uint32_t left = layout_.partitions - claimed_count_;
  claimed_count_ = layout_.partitions;
  if (left > 0) units_finished(left, error);
}

void PartitionedRequest::units_finished(std::uint32_t units, int error) {
  if (error != MPI_SUCCESS) {
    int none = MPI_SUCCESS;  // the first error of the epoch is the one reported
    epoch_error_.compare_exchange_strong(none, error, std::memory_order_acq_rel);
  }
  if (chunks_left_.fetch_sub(units, std::memory_order_acq_rel) == units)
    complete_epoch(epoch_error_.load(std::memory_order_acquire));
}

void PartitionedRequest::complete_epoch(int error) {
  // Copy first: once complete() returned, the application may start the next epoch.
  std::shared_ptr<progress::ExternalCompletion> epoch = epoch_;
  progress::ExternalCompletion::Status st;
  st.source = args_.side == Side::recv ? args_.peer : MPI_ANY_SOURCE;
  // From MPI_PROC_NULL: source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0 (MPI 4.0 sec. 3.11).
  st.tag = args_.side == Side::recv && args_.peer != MPI_PROC_NULL ? args_.tag : MPI_ANY_TAG;
  st.bytes = args_.peer == MPI_PROC_NULL || error != MPI_SUCCESS
                 ? 0
                 : static_cast<MPI_Count>(args_.partitions * args_.partition_bytes);
  st.error = error;
  active_.store(false, std::memory_order_release);
  epoch->complete(st);
}

// Runs inside a progress pass: no MPI call but the receives, no error code creation (MPICH
// may hold its lock here); the text is reported by the next entry point and on stderr.
void PartitionedRequest::on_handshake(int mpi_error) {
  bool fail = false;
  bool post = false;
  {
    std::lock_guard lock(mu_);
    const std::uint64_t mine = std::uint64_t{args_.partitions} * args_.partition_bytes;
    std::string why;
    if (mpi_error != MPI_SUCCESS || handshake_[0] != kMagic || handshake_[1] == 0 ||
        handshake_[1] > UINT32_MAX || handshake_[3] == 0 || handshake_[3] > handshake_[1] ||
        handshake_[4] >= args_.tags.channels || handshake_[5] > 1 ||
        (handshake_[5] == 1 && handshake_[3] != 1)) {
      why = "the message from rank " + std::to_string(args_.peer) + " on tag " +
            std::to_string(args_.tag) + " is not a liboverlap partitioned send (OVX_Psend_init)";
    } else if (handshake_[1] * handshake_[2] != mine) {
      why = "the send from rank " + std::to_string(args_.peer) + " (tag " +
            std::to_string(args_.tag) + ") has " + std::to_string(handshake_[1] * handshake_[2]) +
            " bytes but this receive has " + std::to_string(mine) +
            " (partitions x count x datatype size must match)";
    }
    if (!why.empty()) {
      handshake_error_ = why;
      std::fprintf(stderr, "liboverlap: OVX_Precv_init: %s\n", why.c_str());
      fail = active_.load(std::memory_order_acquire);
    } else {
      layout_ = ChunkLayout{static_cast<std::uint32_t>(handshake_[1]), handshake_[2],
                            static_cast<std::uint32_t>(handshake_[3]), handshake_[5] == 1};
      channel_ = static_cast<std::uint32_t>(handshake_[4]);
      arrived_ = std::make_unique<std::atomic<std::uint8_t>[]>(layout_.chunks());
      layout_known_.store(true, std::memory_order_release);
      post = active_.load(std::memory_order_acquire) && !epoch_posted_;
      if (post) prepare_receives_locked();
    }
  }
  if (fail) complete_epoch(progress::error_class(progress::ErrorKind::argument));
  if (post) post_receives();
}

std::string PartitionedRequest::parrived(int partition, int* flag) {
  if (args_.side != Side::recv)
    return "the request is a send (OVX_Psend_init); Parrived is for receives";
  if (flag == nullptr) return "flag is NULL";
  if (partition < 0 || static_cast<std::uint32_t>(partition) >= args_.partitions)
    return "partition=" + std::to_string(partition) + " is out of range (allowed: 0.." +
           std::to_string(args_.partitions - 1) + ")";
  if (!ever_started_.load(std::memory_order_acquire))
    return "partition=" + std::to_string(partition) +
           ": the request was never started (call OVX_Start first)";
  auto arrived = [&] {
    if (!active_.load(std::memory_order_acquire)) return true;  // epoch complete
    if (args_.peer == MPI_PROC_NULL) return true;
    std::lock_guard lock(mu_);
    if (!epoch_posted_) return false;
    const ChunkRange r = chunks_for_receiver_partition(layout_, args_.partitions,
                                                       static_cast<std::uint32_t>(partition));
    for (std::uint32_t c = r.first; c <= r.last; ++c)
      if (arrived_[c].load(std::memory_order_acquire) == 0) return false;
    return true;
  };
  bool yes = arrived();
  if (!yes) {
    engine_.progress();  // polling Parrived must move the transfer on, as MPI's would
    yes = arrived();
  }
  *flag = yes ? 1 : 0;
  return "";
}

std::string PartitionedRequest::check_free() const {
  if (active_.load(std::memory_order_acquire))
    return "the request has an active epoch (complete it with MPI_Wait/MPI_Test first)";
  return "";
}

std::string PartitionedRequest::handshake_error() const {
  std::lock_guard lock(mu_);
  return handshake_error_;
}

}  // namespace overlap::partitioned
