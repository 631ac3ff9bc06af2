// The bytes a fenced MPI call may touch (intercept/runtime/footprint.hpp), per signature shape:
// extents with negative lower bounds and extents, zero counts, MPI_IN_PLACE, MPI_BOTTOM,
// root and non-root, intercommunicators, neighbourhoods, and the cases that need a
// process-wide fence. Real MPI type handles, made-up extents: no MPI call is made.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "intercept/runtime/footprint.hpp"

namespace overlap::intercept {
namespace {

constexpr std::uintptr_t B = 0x100000;  // a buffer's address
const void* at(std::uintptr_t a) { return reinterpret_cast<const void*>(a); }

// MPI_INT: 4 bytes; MPI_DOUBLE: 8; MPI_BYTE stands for a resized type with a negative
// lower bound: 8 bytes of data at -8, extent 16. Any other type must not be asked about.
int queries = 0;
TypeExtent fake_extent(MPI_Datatype t) {
  ++queries;
  if (t == MPI_INT) return {4, 0, 4};
  if (t == MPI_DOUBLE) return {8, 0, 8};
  if (t == MPI_BYTE) return {16, -8, 8};
  ADD_FAILURE() << "extent of an unexpected type asked for";
  return {};
}

Footprint intra(int rank, int size) {
  queries = 0;
  CommFacts c;
  c.rank = rank;
  c.size = size;
  return Footprint(fake_extent, c);
}
Footprint inter(int size, int remote) {
  queries = 0;
  CommFacts c;
  c.size = size;
  c.remote_size = remote;
  return Footprint(fake_extent, c);
}
Span r(std::uintptr_t lo, std::uintptr_t hi) { return {lo, hi, false}; }
Span w(std::uintptr_t lo, std::uintptr_t hi) { return {lo, hi, true}; }
using Spans = std::vector<Span>;

TEST(TypedSpan, CountTimesExtentFromTheTrueLowerBound) {
  EXPECT_EQ(typed_span(B, 4, {4, 0, 4}, false), r(B, B + 16));
  // Holes between elements (extent 16, 4 bytes of data each): the hull.
  EXPECT_EQ(typed_span(B, 3, {16, 0, 4}, true), w(B, B + 36));
  // A negative lower bound starts before the buffer's address.
  EXPECT_EQ(typed_span(B, 2, {16, -8, 8}, false), r(B - 8, B + 16));
  // A negative extent: element k lies k extents below the first.
  EXPECT_EQ(typed_span(B, 3, {-16, 0, 4}, false), r(B - 32, B + 4));
}

TEST(TypedSpan, ZeroCountAndEmptyTypesTouchNothing) {
  EXPECT_EQ(typed_span(B, 0, {4, 0, 4}, true).lo, typed_span(B, 0, {4, 0, 4}, true).hi);
  EXPECT_EQ(typed_span(B, -1, {4, 0, 4}, true).hi, B);
  Span s = typed_span(B, 5, {0, 0, 0}, true);
  EXPECT_EQ(s.lo, s.hi);
}

TEST(BufferShape, InPlaceAndZeroCountAddNothingAndAskNothing) {
  Footprint f = intra(0, 2);
  buffer_shape(f, MPI_IN_PLACE, 10, MPI_INT, true);
  buffer_shape(f, at(B), 0, MPI_DATATYPE_NULL, true);
  EXPECT_TRUE(f.spans().empty());
  EXPECT_EQ(queries, 0);
  EXPECT_FALSE(f.whole_process());
}

TEST(BufferShape, BottomUsesAbsoluteAddressesAndLargeCounts) {
  Footprint f = intra(0, 1);
  // MPI_BOTTOM (address 0) with a type whose data starts at an absolute address.
  Footprint g(
      [](MPI_Datatype) {
        return TypeExtent{64, static_cast<std::int64_t>(B), 64};
      },
      CommFacts{});
  buffer_shape(g, MPI_BOTTOM, 1, MPI_INT, true);
  EXPECT_EQ(g.spans(), (Spans{w(B, B + 64)}));
  buffer_shape(f, at(B), MPI_Count{3} << 30, MPI_DOUBLE, false);
  EXPECT_EQ(f.spans(), (Spans{r(B, B + (std::uintptr_t{3} << 33))}));
}

TEST(PairShape, SendReadRecvWrittenInPlaceOnlyRecv) {
  Footprint f = intra(0, 2);
  pair_shape(f, at(B), at(2 * B), 4, MPI_INT);
  EXPECT_EQ(f.spans(), (Spans{r(B, B + 16), w(2 * B, 2 * B + 16)}));
  Footprint g = intra(0, 2);
  pair_shape(g, MPI_IN_PLACE, at(2 * B), 4, MPI_INT);
  EXPECT_EQ(g.spans(), (Spans{w(2 * B, 2 * B + 16)}));
}

TEST(BcastShape, RootReadsOthersWriteIntercommSides) {
  Footprint root = intra(1, 3);
  bcast_shape(root, at(B), 2, MPI_DOUBLE, 1);
  EXPECT_EQ(root.spans(), (Spans{r(B, B + 16)}));
  Footprint leaf = intra(0, 3);
  bcast_shape(leaf, at(B), 2, MPI_DOUBLE, 1);
  EXPECT_EQ(leaf.spans(), (Spans{w(B, B + 16)}));
  Footprint iroot = inter(2, 3);
  bcast_shape(iroot, at(B), 2, MPI_DOUBLE, MPI_ROOT);
  EXPECT_EQ(iroot.spans(), (Spans{r(B, B + 16)}));
  Footprint bystander = inter(2, 3);
  bcast_shape(bystander, at(B), 2, MPI_DOUBLE, MPI_PROC_NULL);
  EXPECT_TRUE(bystander.spans().empty());
  Footprint ileaf = inter(3, 2);
  bcast_shape(ileaf, at(B), 2, MPI_DOUBLE, 0);
  EXPECT_EQ(ileaf.spans(), (Spans{w(B, B + 16)}));
}

TEST(ReduceShape, RecvbufOnlyAtTheRoot) {
  Footprint leaf = intra(0, 2);
  reduce_shape(leaf, at(B), at(0xdead0), 4, MPI_INT, 1);  // recvbuf ignored off the root
  EXPECT_EQ(leaf.spans(), (Spans{r(B, B + 16)}));
  Footprint root = intra(1, 2);
  reduce_shape(root, MPI_IN_PLACE, at(2 * B), 4, MPI_INT, 1);
  EXPECT_EQ(root.spans(), (Spans{w(2 * B, 2 * B + 16)}));
}

TEST(GatherScatterShape, RootHasOneBlockPerPeer) {
  Footprint root = intra(0, 4);
  gather_shape(root, at(B), 2, MPI_INT, at(2 * B), 2, MPI_INT, 0);
  EXPECT_EQ(root.spans(), (Spans{r(B, B + 8), w(2 * B, 2 * B + 32)}));
  Footprint leaf = intra(2, 4);
  gather_shape(leaf, at(B), 2, MPI_INT, nullptr, 0, MPI_DATATYPE_NULL, 0);
  EXPECT_EQ(leaf.spans(), (Spans{r(B, B + 8)}));
  // An intercommunicator's root receives from the remote group only, sends nothing.
  Footprint iroot = inter(2, 5);
  gather_shape(iroot, nullptr, 0, MPI_DATATYPE_NULL, at(2 * B), 1, MPI_INT, MPI_ROOT);
  EXPECT_EQ(iroot.spans(), (Spans{w(2 * B, 2 * B + 20)}));
  Footprint sroot = intra(0, 3);
  scatter_shape(sroot, at(B), 1, MPI_DOUBLE, MPI_IN_PLACE, 1, MPI_DOUBLE, 0);
  EXPECT_EQ(sroot.spans(), (Spans{r(B, B + 24)}));
  Footprint sleaf = intra(1, 3);
  scatter_shape(sleaf, at(0xdead0), 1, MPI_DOUBLE, at(2 * B), 1, MPI_DOUBLE, 0);
  EXPECT_EQ(sleaf.spans(), (Spans{w(2 * B, 2 * B + 8)}));
}

TEST(VShapes, BlocksAtDisplacementsZeroCountsSkipped) {
  const int counts[3] = {2, 0, 1};
  const int displs[3] = {4, 100, 0};
  Footprint root = intra(0, 3);
  gatherv_shape(root, MPI_IN_PLACE, 0, MPI_INT, at(B), counts, displs, MPI_INT, 0);
  EXPECT_EQ(root.spans(), (Spans{w(B + 16, B + 24), w(B, B + 4)}));
  // All counts zero: the type is not even asked about.
  const int zeros[3] = {0, 0, 0};
  Footprint empty = intra(0, 3);
  scatterv_shape(empty, at(B), zeros, displs, MPI_DATATYPE_NULL, MPI_IN_PLACE, 0, MPI_INT, 0);
  EXPECT_TRUE(empty.spans().empty());
  EXPECT_EQ(queries, 0);
  // Large-count forms: MPI_Count counts, MPI_Aint displacements; negative lower bound.
  const MPI_Count big[2] = {1, 1};
  const MPI_Aint bdispls[2] = {0, -2};
  Footprint c = intra(1, 2);
  allgatherv_shape(c, MPI_IN_PLACE, MPI_Count{0}, MPI_BYTE, at(B), big, bdispls, MPI_BYTE,
                   Group::peers);
  EXPECT_EQ(c.spans(), (Spans{w(B - 8, B), w(B - 40, B - 32)}));
}

TEST(VShapes, InPlaceSendCountsAreNotRead) {
  const int counts[2] = {1, 3};
  const int displs[2] = {0, 1};
  Footprint f = intra(0, 2);
  alltoallv_shape(f, MPI_IN_PLACE, static_cast<const int*>(nullptr),
                  static_cast<const int*>(nullptr), MPI_DATATYPE_NULL, Group::peers, at(B), counts,
                  displs, MPI_INT, Group::peers);
  EXPECT_EQ(f.spans(), (Spans{w(B, B + 4), w(B + 4, B + 16)}));
  EXPECT_FALSE(f.whole_process());
}

TEST(WShapes, ByteDisplacementsAndOneTypePerBlock) {
  const int counts[3] = {1, 2, 0};
  const MPI_Aint displs[3] = {100, 0, 7};
  const MPI_Datatype types[3] = {MPI_DOUBLE, MPI_INT, MPI_DATATYPE_NULL};
  Footprint f = intra(0, 3);
  alltoallw_shape(f, at(B), counts, displs, types, Group::peers, MPI_IN_PLACE, counts, displs,
                  types, Group::peers);
  EXPECT_EQ(f.spans(), (Spans{r(B + 100, B + 108), r(B, B + 8)}));
  EXPECT_EQ(queries, 2);  // the empty block's type was not asked about
}

TEST(NeighbourShapes, DegreesOrAProcessWideFence) {
  CommFacts c;
  c.size = 8;
  c.in_degree = 2;
  c.out_degree = 3;
  Footprint f(fake_extent, c);
  exchange_shape(f, at(B), 1, MPI_INT, Group::out, at(2 * B), 1, MPI_INT, Group::in);
  EXPECT_EQ(f.spans(), (Spans{r(B, B + 12), w(2 * B, 2 * B + 8)}));
  Footprint none = intra(0, 8);  // not a topology communicator
  exchange_shape(none, at(B), 1, MPI_INT, Group::one, at(2 * B), 1, MPI_INT, Group::in);
  EXPECT_TRUE(none.whole_process());
}

TEST(ExchangeShape, IntercommunicatorsCountTheRemoteGroup) {
  Footprint f = inter(2, 3);
  exchange_shape(f, at(B), 1, MPI_INT, Group::peers, at(2 * B), 2, MPI_INT, Group::peers);
  EXPECT_EQ(f.spans(), (Spans{r(B, B + 12), w(2 * B, 2 * B + 24)}));
}

TEST(ReduceScatterShapes, SumOfCountsInPlaceAndIntercommunicators) {
  const int counts[3] = {1, 2, 3};
  Footprint f = intra(1, 3);
  reduce_scatter_shape(f, at(B), at(2 * B), counts, MPI_INT);
  EXPECT_EQ(f.spans(), (Spans{r(B, B + 24), w(2 * B, 2 * B + 8)}));
  Footprint in_place = intra(1, 3);
  reduce_scatter_shape(in_place, MPI_IN_PLACE, at(2 * B), counts, MPI_INT);
  EXPECT_EQ(in_place.spans(), (Spans{w(2 * B, 2 * B + 24)}));
  Footprint i = inter(3, 2);
  reduce_scatter_shape(i, at(B), at(2 * B), counts, MPI_INT);
  EXPECT_TRUE(i.whole_process());
  Footprint block = intra(0, 4);
  reduce_scatter_block_shape(block, MPI_IN_PLACE, at(2 * B), 2, MPI_INT);
  EXPECT_EQ(block.spans(), (Spans{w(2 * B, 2 * B + 32)}));
  Footprint iblock = inter(2, 5);  // the larger group's n
  reduce_scatter_block_shape(iblock, at(B), at(2 * B), 1, MPI_INT);
  EXPECT_EQ(iblock.spans(), (Spans{r(B, B + 20), w(2 * B, 2 * B + 4)}));
}

TEST(PackShapes, TypedSideAndByteSide) {
  Footprint f = intra(0, 1);
  pack_shape(f, at(B), 3, MPI_INT, at(2 * B), MPI_Aint{100});
  EXPECT_EQ(f.spans(), (Spans{r(B, B + 12), w(2 * B, 2 * B + 100)}));
  Footprint g = intra(0, 1);
  unpack_shape(g, at(B), 50, at(2 * B), MPI_Count{2}, MPI_BYTE);
  EXPECT_EQ(g.spans(), (Spans{r(B, B + 50), w(2 * B - 8, 2 * B + 16)}));
}

}  // namespace
}  // namespace overlap::intercept
