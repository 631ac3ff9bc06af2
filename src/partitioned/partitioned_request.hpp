// One partitioned request (MPI-4 sec. 4.2 semantics) over ordinary MPI point-to-point,
// driven by the process's progress engine.
//
// Sender: at init a handshake (partitions, partition bytes, aggregation, channel) goes to
// the receiver on the handshake tag, so requests match in posting order. In an epoch each
// chunk (a group of partitions, partition_layout.hpp) is posted with MPI_Isend by the
// thread whose Pready made it complete (one atomic decrement per Pready, no lock), and
// handed to the engine, which tests it with everything else in flight; the epoch's MPI
// request completes when every chunk's send did.
// Receiver: the handshake receive is posted at init; once it arrived and an epoch started,
// one MPI_Irecv per chunk goes straight into the application's buffer. Parrived looks at
// per-chunk flags the engine sets, and runs one progress pass when the answer is "not yet".
// Adaptive aggregation (adaptive_runs.hpp): Pready queues the partition and one thread at a
// time posts what is queued as runs, each batch after a descriptor; the receiver posts one
// descriptor receive at a time and, from each descriptor, the runs' receives into place.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "partitioned/adaptive_runs.hpp"
#include "partitioned/partition_layout.hpp"
#include "partitioned/wire_tags.hpp"
#include "progress/generalized_request.hpp"
#include "progress/progress_engine.hpp"

namespace overlap::partitioned {

enum class Side : std::uint8_t { send, recv };

struct RequestArgs {
  Side side = Side::send;
  // Where the partitions' bytes lie, partition p at p * partition_bytes: the program's
  // buffer (from the type's true lower bound) when the type's bytes run in memory order,
  // else a staging area of the request's own, packed from (sender, at Pready) and unpacked
  // into (receiver, as each partition completes) the program's buffer.
  void* buf = nullptr;
  // A type that is not bytes in memory order (holes, a resized extent, a typemap out of
  // order: progress/datatype_layout.hpp): the program's buffer, the request's duplicate
  // of the type, elements per partition and the type's extent. Null otherwise.
  void* user_buf = nullptr;
  MPI_Datatype packed_type = MPI_DATATYPE_NULL;
  MPI_Count count = 0;
  MPI_Aint extent = 0;
  std::uint32_t partitions = 1;
  std::uint64_t partition_bytes = 0;
  int peer = MPI_PROC_NULL;
  int tag = 0;
  MPI_Comm comm = MPI_COMM_NULL;        // the messages go on it
  MPI_Comm error_comm = MPI_COMM_NULL;  // errors go to its handler (the caller's communicator)
  AggregationPolicy aggregation;        // sender only
  // Nobody chose the aggregation (neither MPI_Info nor the environment): where one message
  // per partition would need more tags than the layer has, partitions are grouped.
  bool aggregation_default = false;
  WireTags tags;
};

class PartitionedRequest : public std::enable_shared_from_this<PartitionedRequest> {
 public:
  // Posts the handshake. On failure returns null with `error` set.
  static std::shared_ptr<PartitionedRequest> create(const RequestArgs& args,
                                                    progress::ProgressEngine& engine,
                                                    std::string& error);
  PartitionedRequest(const RequestArgs& args, progress::ProgressEngine& engine);
  ~PartitionedRequest();
  PartitionedRequest(const PartitionedRequest&) = delete;
  PartitionedRequest& operator=(const PartitionedRequest&) = delete;

  // Each returns "" or why the call is refused (nothing changed then).
  std::string start(MPI_Request* request);
  std::string pready(int partition);
  // Pready of partitions low..high, or of a list: as many Pready calls (stopping at the
  // first refused one), but an adaptive sender posts once for all of them.
  std::string pready_range(int low, int high);
  std::string pready_list(std::span<const int> partitions);
  std::string parrived(int partition, int* flag);
  std::string check_free() const;

  Side side() const { return args_.side; }
  // Whose error handler the request's errors go to.
  MPI_Comm error_comm() const { return args_.error_comm; }
  const RequestArgs& args() const { return args_; }
  int partitions() const { return static_cast<int>(args_.partitions); }
  // Error text from the handshake (receiver), for the next entry point to report.
  std::string handshake_error() const;

 private:
  std::string post_handshake();
  // PMPI_Isend/PMPI_Irecv of `bytes` at `buf` to/from the peer (taking turns below
  // MPI_THREAD_MULTIPLE), and the engine's watch of the request.
  int post(Side side, const void* buf, std::uint64_t bytes, int tag, MPI_Request* req);
  void watch(MPI_Request req, std::function<void(const MPI_Status&)> done);
  std::string mark_ready(int partition);  // Pready without the adaptive post
  bool adaptive_sender() const { return args_.side == Side::send && layout_.adaptive; }
  void post_chunk(std::uint32_t chunk);
  void post_ready_runs();                     // adaptive sender
  void post_runs(std::span<const Run> runs);  // adaptive sender: a descriptor and its runs
  // `units` of the epoch (chunks; adaptive: sender partitions, and descriptor sends) done.
  void units_finished(std::uint32_t units, int error);
  void on_handshake(int mpi_error);
  void prepare_receives_locked();  // mu_ held, layout known, epoch active
  void post_receives();
  void post_descriptor_receive();  // adaptive receiver
  bool on_descriptor(const MPI_Status& status);
  void post_run_receive(Run run);
  void abandon_unclaimed(int error);  // adaptive receiver: no more descriptors will come
  bool packed() const { return args_.packed_type != MPI_DATATYPE_NULL; }
  // Sender with a packed type: partition p of the program's buffer into the staging area.
  int pack_partition(std::uint32_t p);
  // Receiver with a packed type: packed bytes [lo, hi) arrived; each receiver partition
  // whose last bytes these were is unpacked into the program's buffer (before the
  // arrival is published: Parrived and the epoch's completion then see unpacked data).
  void bytes_arrived(std::uint64_t lo, std::uint64_t hi);
  void complete_epoch(int error);

  RequestArgs args_;
  progress::ProgressEngine& engine_;
  std::uint32_t channel_ = 0;
  std::optional<std::uint32_t> owned_channel_;  // sender: taken from the process's pool

  // Sender: its own layout, known at init. Receiver: the sender's, from the handshake.
  ChunkLayout layout_;
  std::atomic<bool> layout_known_{false};
  std::unique_ptr<std::atomic<std::uint8_t>[]> ready_;           // sender, per partition
  std::unique_ptr<std::atomic<std::uint32_t>[]> pending_;        // sender, per chunk
  std::unique_ptr<std::atomic<std::uint8_t>[]> arrived_;         // receiver, per chunk
  std::unique_ptr<std::byte[]> staging_;                         // packed types: the bytes moved
  std::unique_ptr<std::atomic<std::uint64_t>[]> unpacked_left_;  // packed receiver, per partition
  std::unique_ptr<AdaptiveBatcher> batcher_;                     // adaptive sender
  // Adaptive receiver, used by one descriptor's completion at a time: the sender
  // partitions named by the epoch's descriptors so far, and the descriptor's buffer.
  std::vector<std::uint8_t> claimed_;
  std::uint32_t claimed_count_ = 0;
  std::uint32_t descriptor_[2 * kRunsPerDescriptor] = {};
  std::atomic<std::uint32_t> chunks_left_{0};
  std::atomic<int> epoch_error_{MPI_SUCCESS};  // the epoch's first failed chunk's error
  std::atomic<bool> active_{false};
  std::atomic<bool> ever_started_{false};
  std::shared_ptr<progress::ExternalCompletion> epoch_;

  std::uint64_t handshake_[6] = {};
  mutable std::mutex mu_;  // receiver: handshake vs. Start; never on the sender's hot path
  bool epoch_posted_ = false;
  std::string handshake_error_;
};

}  // namespace overlap::partitioned
