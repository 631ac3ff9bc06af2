// One rank's faces in `overlap-bench part --pattern sweep3d|halo3d` for one implementation
// at one point (docs/part-benchmark.md, "Patterns"): send and receive buffers, and for
// `overlap` and `mpi` one persistent partitioned request per face, made once and started
// every iteration. Each iteration's outgoing faces carry data derived from (iteration,
// sender, direction, byte), incoming faces are set to its complement beforehand, and
// check() names the first byte that is not what the neighbour sent.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "bench/common/global_clock.hpp"
#include "bench/part/part_record.hpp"
#include "bench/part/process_grid.hpp"
#include "overlap/overlap.h"

namespace overlap::bench {

// Why MPI's own partitioned API cannot be used here, or "" (MPI 4 headers and library).
std::string mpi_partitioned_missing();

class FaceExchange {
 public:
  FaceExchange(PartImpl impl, PartPattern pattern, const ProcessGrid& grid, long bytes, int parts,
               int rank, MPI_Comm comm, const std::string& aggregation);
  ~FaceExchange();
  FaceExchange(const FaceExchange&) = delete;
  FaceExchange& operator=(const FaceExchange&) = delete;

  PartImpl impl() const { return impl_; }
  const std::string& error() const { return error_; }
  void refuse(const std::string& why) {
    if (error_.empty()) error_ = why;
  }
  int incoming() const { return static_cast<int>(in_.size()); }
  const std::vector<GridFace>& incoming_faces() const { return in_faces_; }

  // Before the start barrier: this iteration's data, receives posted, requests started.
  void prepare(long iteration);
  // sweep3d, single: the main thread waits for every incoming face before computing.
  void receive_all(const GlobalClock& clock);
  // sweep3d, thread k before computing: partition k of every incoming face arrived.
  void await_partition(int k, const GlobalClock& clock);
  // Thread k, once its partition of every outgoing face is computed.
  void ready(int k);
  // After the join: single sends; everything completes.
  void finish();
  // After finish(): the first wrong byte received, or "".
  std::string check(long iteration) const;
  // sweep3d: local time partition k of incoming face f was first seen ([f * parts + k]).
  const std::vector<double>& arrivals() const { return arrive_; }

 private:
  struct Face {
    GridFace face;
    std::vector<unsigned char> buf;
    std::vector<MPI_Request> parts;  // single: one; multiple: one per partition
    OVX_Prequest ovx = OVX_PREQUEST_NULL;
    MPI_Request persistent = MPI_REQUEST_NULL;
    MPI_Request active = MPI_REQUEST_NULL;  // overlap, mpi: this epoch's request
  };
  void init_partitioned(Face& f, bool send, const std::string& aggregation);
  bool arrived(Face& f, int k);

  PartImpl impl_;
  long bytes_;
  int parts_;
  int rank_;
  MPI_Comm comm_;
  std::vector<Face> out_, in_;
  std::vector<GridFace> in_faces_;
  std::vector<double> arrive_;
  std::string error_;
};

}  // namespace overlap::bench
