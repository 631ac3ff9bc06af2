// The memory an MPI call may read or write: its buffer arguments with their extents. A
// fence (mpi_functions.def, kind FENCE) waits for the transfers of other threads that
// conflict with these bytes, instead of for every transfer of the process
// (docs/overlap-run.md, "Fences"). Pure: what MPI knows (type extents, the
// communicator's rank, sizes and neighbourhood) comes in from the caller, so every
// signature shape is unit-tested without MPI. One helper per signature shape below;
// mpi_footprints.h says which .def entry uses which.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace overlap::intercept {

// What MPI_Type_get_extent and MPI_Type_get_true_extent say of a type, in bytes.
struct TypeExtent {
  std::int64_t extent = 0;
  std::int64_t true_lb = 0;
  std::int64_t true_extent = 0;
};

// Bytes [lo, hi) the call reads (write false) or may write (write true).
struct Span {
  std::uintptr_t lo = 0, hi = 0;
  bool write = false;
  bool operator==(const Span&) const = default;
};

// The communicator as far as buffer sizes depend on it.
struct CommFacts {
  int rank = 0;
  int size = 1;
  int remote_size = -1;  // an intercommunicator's remote group, else -1
  int in_degree = -1;    // a topology's neighbourhood, else -1
  int out_degree = -1;
};

// How many blocks of a (count, type) argument there are.
enum class Group {
  one,     // one block
  peers,   // one per process of the group the call exchanges with (remote group of an
           // intercommunicator)
  either,  // as peers, but the standard leaves the group open: the larger one
  in,      // one per incoming neighbour (neighbourhood collectives)
  out,     // one per outgoing neighbour
};

// The bytes of `count` elements of a type at `base`: the hull of their true extents
// (negative extents and lower bounds included). Empty (lo == hi) for count <= 0.
Span typed_span(std::uintptr_t base, std::int64_t count, const TypeExtent& t, bool write);

class Footprint {
 public:
  using ExtentOf = std::function<TypeExtent(MPI_Datatype)>;
  Footprint(ExtentOf lookup, CommFacts facts) : extent_of_(std::move(lookup)), comm_(facts) {}

  // A (buf, count x type) argument, count times the group's size: nothing for
  // MPI_IN_PLACE or a zero count. MPI_BOTTOM is address 0 (absolute displacements).
  void typed(const void* buf, std::int64_t count, MPI_Datatype type, Group g, bool write);
  // `n` raw bytes (MPI_Pack's output, MPI_Unpack's input, MPI_Buffer_attach).
  void bytes(const void* buf, std::int64_t n, bool write);
  // v forms: block i is counts[i] elements at displs[i] extents of `type` from `buf`.
  template <class Count, class Displ>
  void blocks(const void* buf, const Count* counts, const Displ* displs, MPI_Datatype type, Group g,
              bool write);
  // w forms: block i is counts[i] elements of types[i] at displs[i] bytes from `buf`.
  template <class Count, class Displ>
  void typed_blocks(const void* buf, const Count* counts, const Displ* displs,
                    const MPI_Datatype* types, Group g, bool write);
  // The call's memory cannot be told from its arguments: it needs a process-wide fence.
  void unknown() { unknown_ = true; }

  // Number of blocks of group g, -1 when the communicator does not say (then unknown()).
  int blocks_of(Group g);
  // 1 root (also a member of an intracommunicator), 2 member, 3 both, 0 neither (an
  // intercommunicator's MPI_PROC_NULL side).
  int role(int root) const;
  const CommFacts& comm() const { return comm_; }

  bool whole_process() const { return unknown_; }
  const std::vector<Span>& spans() const { return spans_; }

 private:
  void add(const Span& s);
  ExtentOf extent_of_;
  CommFacts comm_;
  bool unknown_ = false;
  std::vector<Span> spans_;
};

inline constexpr int kRoot = 1;
inline constexpr int kMember = 2;

template <class Count, class Displ>
void Footprint::blocks(const void* buf, const Count* counts, const Displ* displs, MPI_Datatype type,
                       Group g, bool write) {
  if (buf == MPI_IN_PLACE) return;
  const int n = blocks_of(g);
  if (n < 0) return;
  if (n > 0 && (counts == nullptr || displs == nullptr)) return unknown();
  bool any = false;
  for (int i = 0; i < n && !any; ++i) any = counts[i] > 0;
  if (!any) return;
  const TypeExtent t = extent_of_(type);
  const auto base = reinterpret_cast<std::uintptr_t>(buf);
  for (int i = 0; i < n; ++i) {
    const std::int64_t offset = static_cast<std::int64_t>(displs[i]) * t.extent;
    add(typed_span(base + static_cast<std::uintptr_t>(offset), static_cast<std::int64_t>(counts[i]),
                   t, write));
  }
}

template <class Count, class Displ>
void Footprint::typed_blocks(const void* buf, const Count* counts, const Displ* displs,
                             const MPI_Datatype* types, Group g, bool write) {
  if (buf == MPI_IN_PLACE) return;
  const int n = blocks_of(g);
  if (n < 0) return;
  if (n > 0 && (counts == nullptr || displs == nullptr || types == nullptr)) return unknown();
  const auto base = reinterpret_cast<std::uintptr_t>(buf);
  for (int i = 0; i < n; ++i) {
    if (counts[i] <= 0) continue;  // the type of an empty block need not be valid
    add(typed_span(base + static_cast<std::uintptr_t>(static_cast<std::int64_t>(displs[i])),
                   static_cast<std::int64_t>(counts[i]), extent_of_(types[i]), write));
  }
}

// ---- one helper per signature shape (mpi_footprints.h maps the .def entries) -----------

// One (buf, count, type) argument: MPI_Mrecv, persistent point-to-point, MPI-IO, ...
template <class Count>
void buffer_shape(Footprint& f, const void* buf, Count count, MPI_Datatype type, bool write) {
  f.typed(buf, count, type, Group::one, write);
}
// A send and a receive buffer of one count and type: Allreduce, Scan, Exscan, Reduce_local.
template <class Count>
void pair_shape(Footprint& f, const void* sendbuf, const void* recvbuf, Count count,
                MPI_Datatype type) {
  f.typed(sendbuf, count, type, Group::one, false);
  f.typed(recvbuf, count, type, Group::one, true);
}
// Send and receive (count, type) pairs, each times a group: Allgather (one, peers),
// Alltoall (peers, peers), the neighbourhood forms (out or one, in), Sendrecv (one, one).
template <class Count>
void exchange_shape(Footprint& f, const void* sendbuf, Count sendcount, MPI_Datatype sendtype,
                    Group send_group, const void* recvbuf, Count recvcount, MPI_Datatype recvtype,
                    Group recv_group) {
  f.typed(sendbuf, sendcount, sendtype, send_group, false);
  f.typed(recvbuf, recvcount, recvtype, recv_group, true);
}
// Bcast: the root reads, the others write.
template <class Count>
void bcast_shape(Footprint& f, const void* buf, Count count, MPI_Datatype type, int root) {
  const int r = f.role(root);
  if (r & kRoot) {
    f.typed(buf, count, type, Group::one, false);
  } else if (r & kMember) {
    f.typed(buf, count, type, Group::one, true);
  }
}
// Reduce: every member reads its sendbuf, the root writes recvbuf (read too in place).
template <class Count>
void reduce_shape(Footprint& f, const void* sendbuf, const void* recvbuf, Count count,
                  MPI_Datatype type, int root) {
  const int r = f.role(root);
  if (r & kMember) f.typed(sendbuf, count, type, Group::one, false);
  if (r & kRoot) f.typed(recvbuf, count, type, Group::one, true);
}
// Gather: members send one block, the root receives one per peer.
template <class Count>
void gather_shape(Footprint& f, const void* sendbuf, Count sendcount, MPI_Datatype sendtype,
                  const void* recvbuf, Count recvcount, MPI_Datatype recvtype, int root) {
  const int r = f.role(root);
  if (r & kMember) f.typed(sendbuf, sendcount, sendtype, Group::one, false);
  if (r & kRoot) f.typed(recvbuf, recvcount, recvtype, Group::peers, true);
}
// Scatter: the root sends one block per peer, members receive one.
template <class Count>
void scatter_shape(Footprint& f, const void* sendbuf, Count sendcount, MPI_Datatype sendtype,
                   const void* recvbuf, Count recvcount, MPI_Datatype recvtype, int root) {
  const int r = f.role(root);
  if (r & kRoot) f.typed(sendbuf, sendcount, sendtype, Group::peers, false);
  if (r & kMember) f.typed(recvbuf, recvcount, recvtype, Group::one, true);
}
template <class Count, class Displ>
void gatherv_shape(Footprint& f, const void* sendbuf, Count sendcount, MPI_Datatype sendtype,
                   const void* recvbuf, const Count* recvcounts, const Displ* displs,
                   MPI_Datatype recvtype, int root) {
  const int r = f.role(root);
  if (r & kMember) f.typed(sendbuf, sendcount, sendtype, Group::one, false);
  if (r & kRoot) f.blocks(recvbuf, recvcounts, displs, recvtype, Group::peers, true);
}
template <class Count, class Displ>
void scatterv_shape(Footprint& f, const void* sendbuf, const Count* sendcounts, const Displ* displs,
                    MPI_Datatype sendtype, const void* recvbuf, Count recvcount,
                    MPI_Datatype recvtype, int root) {
  const int r = f.role(root);
  if (r & kRoot) f.blocks(sendbuf, sendcounts, displs, sendtype, Group::peers, false);
  if (r & kMember) f.typed(recvbuf, recvcount, recvtype, Group::one, true);
}
// Allgatherv and Neighbor_allgatherv: one block out, counts/displs in.
template <class Count, class Displ>
void allgatherv_shape(Footprint& f, const void* sendbuf, Count sendcount, MPI_Datatype sendtype,
                      const void* recvbuf, const Count* recvcounts, const Displ* displs,
                      MPI_Datatype recvtype, Group recv_group) {
  f.typed(sendbuf, sendcount, sendtype, Group::one, false);
  f.blocks(recvbuf, recvcounts, displs, recvtype, recv_group, true);
}
// Alltoallv and Neighbor_alltoallv (sendcounts are not read in place).
template <class Count, class Displ>
void alltoallv_shape(Footprint& f, const void* sendbuf, const Count* sendcounts,
                     const Displ* sdispls, MPI_Datatype sendtype, Group send_group,
                     const void* recvbuf, const Count* recvcounts, const Displ* rdispls,
                     MPI_Datatype recvtype, Group recv_group) {
  f.blocks(sendbuf, sendcounts, sdispls, sendtype, send_group, false);
  f.blocks(recvbuf, recvcounts, rdispls, recvtype, recv_group, true);
}
// Alltoallw and Neighbor_alltoallw: byte displacements, one type per block.
template <class Count, class Displ>
void alltoallw_shape(Footprint& f, const void* sendbuf, const Count* sendcounts,
                     const Displ* sdispls, const MPI_Datatype* sendtypes, Group send_group,
                     const void* recvbuf, const Count* recvcounts, const Displ* rdispls,
                     const MPI_Datatype* recvtypes, Group recv_group) {
  f.typed_blocks(sendbuf, sendcounts, sdispls, sendtypes, send_group, false);
  f.typed_blocks(recvbuf, recvcounts, rdispls, recvtypes, recv_group, true);
}
// Reduce_scatter_block: n x recvcount elements in, recvcount out; in place the input is
// in recvbuf. Which group's n the standard means for an intercommunicator is not clear:
// the larger.
template <class Count>
void reduce_scatter_block_shape(Footprint& f, const void* sendbuf, const void* recvbuf,
                                Count recvcount, MPI_Datatype type) {
  if (sendbuf == MPI_IN_PLACE) {
    f.typed(recvbuf, recvcount, type, Group::either, true);
    return;
  }
  f.typed(sendbuf, recvcount, type, Group::either, false);
  f.typed(recvbuf, recvcount, type, Group::one, true);
}
// Reduce_scatter: sum(recvcounts) elements in, recvcounts[rank] out (in place: all in
// recvbuf). On an intercommunicator the array's length is not this call's to know.
template <class Count>
void reduce_scatter_shape(Footprint& f, const void* sendbuf, const void* recvbuf,
                          const Count* recvcounts, MPI_Datatype type) {
  if (f.comm().remote_size >= 0 || recvcounts == nullptr) return f.unknown();
  std::int64_t total = 0;
  for (int i = 0; i < f.comm().size; ++i) total += static_cast<std::int64_t>(recvcounts[i]);
  if (sendbuf == MPI_IN_PLACE) {
    f.typed(recvbuf, total, type, Group::one, true);
    return;
  }
  f.typed(sendbuf, total, type, Group::one, false);
  f.typed(recvbuf, static_cast<std::int64_t>(recvcounts[f.comm().rank]), type, Group::one, true);
}
// Pack and Pack_external: typed input, outsize bytes of output.
template <class Count, class Size>
void pack_shape(Footprint& f, const void* inbuf, Count incount, MPI_Datatype type,
                const void* outbuf, Size outsize) {
  f.typed(inbuf, incount, type, Group::one, false);
  f.bytes(outbuf, static_cast<std::int64_t>(outsize), true);
}
// Unpack and Unpack_external: insize bytes of input, typed output.
template <class Count, class Size>
void unpack_shape(Footprint& f, const void* inbuf, Size insize, const void* outbuf, Count outcount,
                  MPI_Datatype type) {
  f.bytes(inbuf, static_cast<std::int64_t>(insize), false);
  f.typed(outbuf, outcount, type, Group::one, true);
}

}  // namespace overlap::intercept
