/* Companion table of mpi_functions.def: what each FENCE (or EXPOSE) entry may read or write, as the
 * fence before it (preload_shim.c, BEFORE_FENCE) passes it to the core. One
 * OVX_FOOTPRINT_<name>(c) per FENCE or EXPOSE entry, in the entry's order, written in terms of the
 * entry's parameter names; an entry without one does not compile. Each expands to
 * one call of the core's fence for the entry's signature shape (shim_api.h; the extents
 * are footprint.hpp's), which waits for the calling thread's deferred transfers and for
 * the transfers of other threads conflicting with those bytes (docs/overlap-run.md,
 * "Fences"). OVX_FENCE_ALL: the call's memory cannot be told from its arguments (a
 * request's, a window's, a split collective's end): every
 * deferred transfer of the process completes first.
 * Groups: OVX_ONE one block, OVX_PEERS one per process exchanged with (the remote group
 * of an intercommunicator), OVX_IN/OVX_OUT one per incoming/outgoing neighbour. */
#ifndef OVERLAP_INTERCEPT_MPI_FOOTPRINTS_H
#define OVERLAP_INTERCEPT_MPI_FOOTPRINTS_H

#define OVX_FENCE_ALL(c) c->fence()

/* A reduction's operation, told to the core before its footprint (shim_api.h, note_op). */
#define OVX_NOTE_OP(c, op) ((c)->note_op != NULL ? (c)->note_op(op) : (void)0)

#define OVX_FOOTPRINT_MPI_Mrecv(c) c->fence_buffer(buf, count, type, 1)
#define OVX_FOOTPRINT_MPI_Imrecv(c) c->fence_buffer(buf, count, type, 1)
#define OVX_FOOTPRINT_MPI_Send_init(c) c->fence_buffer(buf, count, type, 0)
#define OVX_FOOTPRINT_MPI_Bsend_init(c) c->fence_buffer(buf, count, type, 0)
#define OVX_FOOTPRINT_MPI_Ssend_init(c) c->fence_buffer(buf, count, type, 0)
#define OVX_FOOTPRINT_MPI_Rsend_init(c) c->fence_buffer(buf, count, type, 0)
#define OVX_FOOTPRINT_MPI_Recv_init(c) c->fence_buffer(buf, count, type, 1)
#define OVX_FOOTPRINT_MPI_Start(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Startall(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Free_mem(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Buffer_attach(c) c->fence_bytes(buffer, size, 1)
#define OVX_FOOTPRINT_MPI_Buffer_detach(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Pack(c) c->fence_pack(inbuf, incount, type, outbuf, outsize)
#define OVX_FOOTPRINT_MPI_Unpack(c) c->fence_unpack(inbuf, insize, outbuf, outcount, type)
#define OVX_FOOTPRINT_MPI_Bcast(c) c->fence_bcast(buf, count, type, root, comm)
#define OVX_FOOTPRINT_MPI_Reduce(c) c->fence_reduce(sendbuf, recvbuf, count, type, root, comm)
#define OVX_FOOTPRINT_MPI_Allreduce(c) c->fence_pair(sendbuf, recvbuf, count, type)
#define OVX_FOOTPRINT_MPI_Reduce_local(c) c->fence_pair(inbuf, inoutbuf, count, type)
#define OVX_FOOTPRINT_MPI_Reduce_scatter(c) \
  c->fence_reduce_scatter(sendbuf, recvbuf, recvcounts, type, comm)
#define OVX_FOOTPRINT_MPI_Reduce_scatter_block(c) \
  c->fence_reduce_scatter_block(sendbuf, recvbuf, recvcount, type, comm)
#define OVX_FOOTPRINT_MPI_Scan(c) c->fence_pair(sendbuf, recvbuf, count, type)
#define OVX_FOOTPRINT_MPI_Exscan(c) c->fence_pair(sendbuf, recvbuf, count, type)
#define OVX_FOOTPRINT_MPI_Gather(c) \
  c->fence_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)
#define OVX_FOOTPRINT_MPI_Gatherv(c) \
  c->fence_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm)
#define OVX_FOOTPRINT_MPI_Scatter(c) \
  c->fence_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)
#define OVX_FOOTPRINT_MPI_Scatterv(c) \
  c->fence_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm)
#define OVX_FOOTPRINT_MPI_Allgather(c)                                                   \
  c->fence_exchange(sendbuf, sendcount, sendtype, OVX_ONE, recvbuf, recvcount, recvtype, \
                    OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Allgatherv(c)                                                    \
  c->fence_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, \
                      OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Alltoall(c)                                                      \
  c->fence_exchange(sendbuf, sendcount, sendtype, OVX_PEERS, recvbuf, recvcount, recvtype, \
                    OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Alltoallv(c)                                                       \
  c->fence_alltoallv(sendbuf, sendcounts, sdispls, sendtype, OVX_PEERS, recvbuf, recvcounts, \
                     rdispls, recvtype, OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Alltoallw(c)                                                        \
  c->fence_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, OVX_PEERS, recvbuf, recvcounts, \
                     rdispls, recvtypes, OVX_PEERS, comm)
/* A barrier and a communicator's duplication read and write no buffer of the program's. */
#define OVX_FOOTPRINT_MPI_Ibarrier(c) (void)(c)
#define OVX_FOOTPRINT_MPI_Comm_idup(c) (void)(c)
#define OVX_FOOTPRINT_MPI_Ibcast(c) c->fence_bcast(buf, count, type, root, comm)
#define OVX_FOOTPRINT_MPI_Ireduce(c) \
  OVX_NOTE_OP(c, op), c->fence_reduce(sendbuf, recvbuf, count, type, root, comm)
#define OVX_FOOTPRINT_MPI_Iallreduce(c) \
  OVX_NOTE_OP(c, op), c->fence_pair(sendbuf, recvbuf, count, type)
#define OVX_FOOTPRINT_MPI_Ireduce_scatter_block(c) \
  OVX_NOTE_OP(c, op), c->fence_reduce_scatter_block(sendbuf, recvbuf, recvcount, type, comm)
#define OVX_FOOTPRINT_MPI_Iscan(c) OVX_NOTE_OP(c, op), c->fence_pair(sendbuf, recvbuf, count, type)
#define OVX_FOOTPRINT_MPI_Iexscan(c) \
  OVX_NOTE_OP(c, op), c->fence_pair(sendbuf, recvbuf, count, type)
#define OVX_FOOTPRINT_MPI_Igather(c) \
  c->fence_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)
#define OVX_FOOTPRINT_MPI_Iscatter(c) \
  c->fence_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)
#define OVX_FOOTPRINT_MPI_Iallgather(c)                                                  \
  c->fence_exchange(sendbuf, sendcount, sendtype, OVX_ONE, recvbuf, recvcount, recvtype, \
                    OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Ialltoall(c)                                                     \
  c->fence_exchange(sendbuf, sendcount, sendtype, OVX_PEERS, recvbuf, recvcount, recvtype, \
                    OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Igatherv(c) \
  c->fence_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm)
#define OVX_FOOTPRINT_MPI_Iscatterv(c) \
  c->fence_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm)
#define OVX_FOOTPRINT_MPI_Iallgatherv(c)                                                   \
  c->fence_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, \
                      OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Ialltoallv(c)                                                      \
  c->fence_alltoallv(sendbuf, sendcounts, sdispls, sendtype, OVX_PEERS, recvbuf, recvcounts, \
                     rdispls, recvtype, OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Ireduce_scatter(c) \
  OVX_NOTE_OP(c, op), c->fence_reduce_scatter(sendbuf, recvbuf, recvcounts, type, comm)
#define OVX_FOOTPRINT_MPI_Neighbor_allgather(c)                                                  \
  c->fence_exchange(sendbuf, sendcount, sendtype, OVX_ONE, recvbuf, recvcount, recvtype, OVX_IN, \
                    comm)
#define OVX_FOOTPRINT_MPI_Neighbor_alltoall(c)                                                   \
  c->fence_exchange(sendbuf, sendcount, sendtype, OVX_OUT, recvbuf, recvcount, recvtype, OVX_IN, \
                    comm)
#define OVX_FOOTPRINT_MPI_Win_create(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Win_attach(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Win_allocate(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Alloc_mem(c) (void)0 /* no buffer of the program's */
#define OVX_FOOTPRINT_MPI_Win_allocate_shared(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Win_shared_query(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Win_fence(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Win_start(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Win_post(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Win_lock(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Win_lock_all(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Put(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Get(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Accumulate(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Get_accumulate(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Fetch_and_op(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Compare_and_swap(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_File_read(c) c->fence_buffer(buf, count, type, 1)
#define OVX_FOOTPRINT_MPI_File_read_all(c) c->fence_buffer(buf, count, type, 1)
#define OVX_FOOTPRINT_MPI_File_read_at(c) c->fence_buffer(buf, count, type, 1)
#define OVX_FOOTPRINT_MPI_File_read_at_all(c) c->fence_buffer(buf, count, type, 1)
#define OVX_FOOTPRINT_MPI_File_write(c) c->fence_buffer(buf, count, type, 0)
#define OVX_FOOTPRINT_MPI_File_write_all(c) c->fence_buffer(buf, count, type, 0)
#define OVX_FOOTPRINT_MPI_File_write_at(c) c->fence_buffer(buf, count, type, 0)
#define OVX_FOOTPRINT_MPI_File_write_at_all(c) c->fence_buffer(buf, count, type, 0)
#define OVX_FOOTPRINT_MPI_Neighbor_allgatherv(c)                                                   \
  c->fence_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, OVX_IN, \
                      comm)
#define OVX_FOOTPRINT_MPI_Neighbor_alltoallv(c)                                            \
  c->fence_alltoallv(sendbuf, sendcounts, sdispls, sendtype, OVX_OUT, recvbuf, recvcounts, \
                     rdispls, recvtype, OVX_IN, comm)
#define OVX_FOOTPRINT_MPI_Neighbor_alltoallw(c)                                                  \
  c->fence_alltoallw_aint(sendbuf, sendcounts, sdispls, sendtypes, OVX_OUT, recvbuf, recvcounts, \
                          rdispls, recvtypes, OVX_IN, comm)
#define OVX_FOOTPRINT_MPI_Ineighbor_allgather(c)                                                 \
  c->fence_exchange(sendbuf, sendcount, sendtype, OVX_ONE, recvbuf, recvcount, recvtype, OVX_IN, \
                    comm)
#define OVX_FOOTPRINT_MPI_Ineighbor_allgatherv(c)                                                  \
  c->fence_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, OVX_IN, \
                      comm)
#define OVX_FOOTPRINT_MPI_Ineighbor_alltoall(c)                                                  \
  c->fence_exchange(sendbuf, sendcount, sendtype, OVX_OUT, recvbuf, recvcount, recvtype, OVX_IN, \
                    comm)
#define OVX_FOOTPRINT_MPI_Ineighbor_alltoallv(c)                                           \
  c->fence_alltoallv(sendbuf, sendcounts, sdispls, sendtype, OVX_OUT, recvbuf, recvcounts, \
                     rdispls, recvtype, OVX_IN, comm)
#define OVX_FOOTPRINT_MPI_Ineighbor_alltoallw(c)                                                 \
  c->fence_alltoallw_aint(sendbuf, sendcounts, sdispls, sendtypes, OVX_OUT, recvbuf, recvcounts, \
                          rdispls, recvtypes, OVX_IN, comm)
#define OVX_FOOTPRINT_MPI_Ialltoallw(c)                                                       \
  c->fence_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, OVX_PEERS, recvbuf, recvcounts, \
                     rdispls, recvtypes, OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Rput(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Rget(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Raccumulate(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Rget_accumulate(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Pack_external(c) c->fence_pack(inbuf, incount, datatype, outbuf, outsize)
#define OVX_FOOTPRINT_MPI_Unpack_external(c) \
  c->fence_unpack(inbuf, insize, outbuf, outcount, datatype)
#define OVX_FOOTPRINT_MPI_File_iread(c) c->fence_buffer(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_iread_at(c) c->fence_buffer(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_iread_all(c) c->fence_buffer(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_iread_at_all(c) c->fence_buffer(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_iwrite(c) c->fence_buffer(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_File_iwrite_at(c) c->fence_buffer(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_File_iwrite_all(c) c->fence_buffer(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_File_iwrite_at_all(c) c->fence_buffer(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_File_iread_shared(c) c->fence_buffer(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_iwrite_shared(c) c->fence_buffer(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_File_read_shared(c) c->fence_buffer(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_write_shared(c) c->fence_buffer(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_File_read_ordered(c) c->fence_buffer(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_write_ordered(c) c->fence_buffer(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_File_read_all_begin(c) c->fence_buffer(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_read_all_end(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_File_write_all_begin(c) c->fence_buffer(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_File_write_all_end(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_File_read_at_all_begin(c) c->fence_buffer(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_read_at_all_end(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_File_write_at_all_begin(c) c->fence_buffer(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_File_write_at_all_end(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_File_read_ordered_begin(c) c->fence_buffer(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_read_ordered_end(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_File_write_ordered_begin(c) c->fence_buffer(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_File_write_ordered_end(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Win_sync(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Win_unlock(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Win_unlock_all(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Win_flush(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Win_flush_all(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Win_flush_local(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Win_flush_local_all(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Win_complete(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Win_wait(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Win_test(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Isendrecv(c)                                                            \
  c->fence_exchange(sendbuf, sendcount, sendtype, OVX_ONE, recvbuf, recvcount, recvtype, OVX_ONE, \
                    comm)
#define OVX_FOOTPRINT_MPI_Isendrecv_replace(c) c->fence_buffer(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_Allgather_init(c)                                              \
  c->fence_exchange(sendbuf, sendcount, sendtype, OVX_ONE, recvbuf, recvcount, recvtype, \
                    OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Allgatherv_init(c)                                               \
  c->fence_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, \
                      OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Allreduce_init(c) \
  OVX_NOTE_OP(c, op), c->fence_pair(sendbuf, recvbuf, count, datatype)
#define OVX_FOOTPRINT_MPI_Alltoall_init(c)                                                 \
  c->fence_exchange(sendbuf, sendcount, sendtype, OVX_PEERS, recvbuf, recvcount, recvtype, \
                    OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Alltoallv_init(c)                                                  \
  c->fence_alltoallv(sendbuf, sendcounts, sdispls, sendtype, OVX_PEERS, recvbuf, recvcounts, \
                     rdispls, recvtype, OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Alltoallw_init(c)                                                   \
  c->fence_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, OVX_PEERS, recvbuf, recvcounts, \
                     rdispls, recvtypes, OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Bcast_init(c) c->fence_bcast(buffer, count, datatype, root, comm)
#define OVX_FOOTPRINT_MPI_Exscan_init(c) \
  OVX_NOTE_OP(c, op), c->fence_pair(sendbuf, recvbuf, count, datatype)
#define OVX_FOOTPRINT_MPI_Gather_init(c) \
  c->fence_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)
#define OVX_FOOTPRINT_MPI_Gatherv_init(c) \
  c->fence_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm)
#define OVX_FOOTPRINT_MPI_Reduce_init(c) \
  OVX_NOTE_OP(c, op), c->fence_reduce(sendbuf, recvbuf, count, datatype, root, comm)
#define OVX_FOOTPRINT_MPI_Reduce_scatter_init(c) \
  OVX_NOTE_OP(c, op), c->fence_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, comm)
#define OVX_FOOTPRINT_MPI_Reduce_scatter_block_init(c) \
  OVX_NOTE_OP(c, op), c->fence_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, comm)
#define OVX_FOOTPRINT_MPI_Scan_init(c) \
  OVX_NOTE_OP(c, op), c->fence_pair(sendbuf, recvbuf, count, datatype)
#define OVX_FOOTPRINT_MPI_Scatter_init(c) \
  c->fence_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)
#define OVX_FOOTPRINT_MPI_Scatterv_init(c) \
  c->fence_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm)
#define OVX_FOOTPRINT_MPI_Neighbor_allgather_init(c)                                             \
  c->fence_exchange(sendbuf, sendcount, sendtype, OVX_ONE, recvbuf, recvcount, recvtype, OVX_IN, \
                    comm)
#define OVX_FOOTPRINT_MPI_Neighbor_allgatherv_init(c)                                              \
  c->fence_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, OVX_IN, \
                      comm)
#define OVX_FOOTPRINT_MPI_Neighbor_alltoall_init(c)                                              \
  c->fence_exchange(sendbuf, sendcount, sendtype, OVX_OUT, recvbuf, recvcount, recvtype, OVX_IN, \
                    comm)
#define OVX_FOOTPRINT_MPI_Neighbor_alltoallv_init(c)                                       \
  c->fence_alltoallv(sendbuf, sendcounts, sdispls, sendtype, OVX_OUT, recvbuf, recvcounts, \
                     rdispls, recvtype, OVX_IN, comm)
#define OVX_FOOTPRINT_MPI_Neighbor_alltoallw_init(c)                                             \
  c->fence_alltoallw_aint(sendbuf, sendcounts, sdispls, sendtypes, OVX_OUT, recvbuf, recvcounts, \
                          rdispls, recvtypes, OVX_IN, comm)
#define OVX_FOOTPRINT_MPI_Allgather_c(c)                                                   \
  c->fence_exchange_c(sendbuf, sendcount, sendtype, OVX_ONE, recvbuf, recvcount, recvtype, \
                      OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Allgather_init_c(c)                                              \
  c->fence_exchange_c(sendbuf, sendcount, sendtype, OVX_ONE, recvbuf, recvcount, recvtype, \
                      OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Allgatherv_c(c)                                                    \
  c->fence_allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, \
                        OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Allgatherv_init_c(c)                                               \
  c->fence_allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, \
                        OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Allreduce_c(c) c->fence_pair_c(sendbuf, recvbuf, count, datatype)
#define OVX_FOOTPRINT_MPI_Allreduce_init_c(c) \
  OVX_NOTE_OP(c, op), c->fence_pair_c(sendbuf, recvbuf, count, datatype)
#define OVX_FOOTPRINT_MPI_Alltoall_c(c)                                                      \
  c->fence_exchange_c(sendbuf, sendcount, sendtype, OVX_PEERS, recvbuf, recvcount, recvtype, \
                      OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Alltoall_init_c(c)                                                 \
  c->fence_exchange_c(sendbuf, sendcount, sendtype, OVX_PEERS, recvbuf, recvcount, recvtype, \
                      OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Alltoallv_c(c)                                                       \
  c->fence_alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, OVX_PEERS, recvbuf, recvcounts, \
                       rdispls, recvtype, OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Alltoallv_init_c(c)                                                  \
  c->fence_alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, OVX_PEERS, recvbuf, recvcounts, \
                       rdispls, recvtype, OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Alltoallw_c(c)                                                        \
  c->fence_alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, OVX_PEERS, recvbuf, recvcounts, \
                       rdispls, recvtypes, OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Alltoallw_init_c(c)                                                   \
  c->fence_alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, OVX_PEERS, recvbuf, recvcounts, \
                       rdispls, recvtypes, OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Bcast_c(c) c->fence_bcast_c(buffer, count, datatype, root, comm)
#define OVX_FOOTPRINT_MPI_Bcast_init_c(c) c->fence_bcast_c(buffer, count, datatype, root, comm)
#define OVX_FOOTPRINT_MPI_Exscan_c(c) c->fence_pair_c(sendbuf, recvbuf, count, datatype)
#define OVX_FOOTPRINT_MPI_Exscan_init_c(c) \
  OVX_NOTE_OP(c, op), c->fence_pair_c(sendbuf, recvbuf, count, datatype)
#define OVX_FOOTPRINT_MPI_Gather_c(c) \
  c->fence_gather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)
#define OVX_FOOTPRINT_MPI_Gather_init_c(c) \
  c->fence_gather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)
#define OVX_FOOTPRINT_MPI_Gatherv_c(c)                                                          \
  c->fence_gatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, \
                     comm)
#define OVX_FOOTPRINT_MPI_Gatherv_init_c(c)                                                     \
  c->fence_gatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, \
                     comm)
#define OVX_FOOTPRINT_MPI_Iallgather_c(c)                                                  \
  c->fence_exchange_c(sendbuf, sendcount, sendtype, OVX_ONE, recvbuf, recvcount, recvtype, \
                      OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Iallgatherv_c(c)                                                   \
  c->fence_allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, \
                        OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Iallreduce_c(c) \
  OVX_NOTE_OP(c, op), c->fence_pair_c(sendbuf, recvbuf, count, datatype)
#define OVX_FOOTPRINT_MPI_Ialltoall_c(c)                                                     \
  c->fence_exchange_c(sendbuf, sendcount, sendtype, OVX_PEERS, recvbuf, recvcount, recvtype, \
                      OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Ialltoallv_c(c)                                                      \
  c->fence_alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, OVX_PEERS, recvbuf, recvcounts, \
                       rdispls, recvtype, OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Ialltoallw_c(c)                                                       \
  c->fence_alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, OVX_PEERS, recvbuf, recvcounts, \
                       rdispls, recvtypes, OVX_PEERS, comm)
#define OVX_FOOTPRINT_MPI_Ibcast_c(c) c->fence_bcast_c(buffer, count, datatype, root, comm)
#define OVX_FOOTPRINT_MPI_Iexscan_c(c) \
  OVX_NOTE_OP(c, op), c->fence_pair_c(sendbuf, recvbuf, count, datatype)
#define OVX_FOOTPRINT_MPI_Igather_c(c) \
  c->fence_gather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)
#define OVX_FOOTPRINT_MPI_Igatherv_c(c)                                                         \
  c->fence_gatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, \
                     comm)
#define OVX_FOOTPRINT_MPI_Ineighbor_allgather_c(c)                                                 \
  c->fence_exchange_c(sendbuf, sendcount, sendtype, OVX_ONE, recvbuf, recvcount, recvtype, OVX_IN, \
                      comm)
#define OVX_FOOTPRINT_MPI_Ineighbor_allgatherv_c(c)                                          \
  c->fence_allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, \
                        OVX_IN, comm)
#define OVX_FOOTPRINT_MPI_Ineighbor_alltoall_c(c)                                                  \
  c->fence_exchange_c(sendbuf, sendcount, sendtype, OVX_OUT, recvbuf, recvcount, recvtype, OVX_IN, \
                      comm)
#define OVX_FOOTPRINT_MPI_Ineighbor_alltoallv_c(c)                                           \
  c->fence_alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, OVX_OUT, recvbuf, recvcounts, \
                       rdispls, recvtype, OVX_IN, comm)
#define OVX_FOOTPRINT_MPI_Ineighbor_alltoallw_c(c)                                            \
  c->fence_alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, OVX_OUT, recvbuf, recvcounts, \
                       rdispls, recvtypes, OVX_IN, comm)
#define OVX_FOOTPRINT_MPI_Ireduce_c(c) \
  OVX_NOTE_OP(c, op), c->fence_reduce_c(sendbuf, recvbuf, count, datatype, root, comm)
#define OVX_FOOTPRINT_MPI_Ireduce_scatter_c(c) \
  OVX_NOTE_OP(c, op), c->fence_reduce_scatter_c(sendbuf, recvbuf, recvcounts, datatype, comm)
#define OVX_FOOTPRINT_MPI_Ireduce_scatter_block_c(c) \
  OVX_NOTE_OP(c, op), c->fence_reduce_scatter_block_c(sendbuf, recvbuf, recvcount, datatype, comm)
#define OVX_FOOTPRINT_MPI_Iscan_c(c) \
  OVX_NOTE_OP(c, op), c->fence_pair_c(sendbuf, recvbuf, count, datatype)
#define OVX_FOOTPRINT_MPI_Iscatter_c(c) \
  c->fence_scatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)
#define OVX_FOOTPRINT_MPI_Iscatterv_c(c)                                                         \
  c->fence_scatterv_c(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, \
                      comm)
#define OVX_FOOTPRINT_MPI_Neighbor_allgather_c(c)                                                  \
  c->fence_exchange_c(sendbuf, sendcount, sendtype, OVX_ONE, recvbuf, recvcount, recvtype, OVX_IN, \
                      comm)
#define OVX_FOOTPRINT_MPI_Neighbor_allgather_init_c(c)                                             \
  c->fence_exchange_c(sendbuf, sendcount, sendtype, OVX_ONE, recvbuf, recvcount, recvtype, OVX_IN, \
                      comm)
#define OVX_FOOTPRINT_MPI_Neighbor_allgatherv_c(c)                                           \
  c->fence_allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, \
                        OVX_IN, comm)
#define OVX_FOOTPRINT_MPI_Neighbor_allgatherv_init_c(c)                                      \
  c->fence_allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, \
                        OVX_IN, comm)
#define OVX_FOOTPRINT_MPI_Neighbor_alltoall_c(c)                                                   \
  c->fence_exchange_c(sendbuf, sendcount, sendtype, OVX_OUT, recvbuf, recvcount, recvtype, OVX_IN, \
                      comm)
#define OVX_FOOTPRINT_MPI_Neighbor_alltoall_init_c(c)                                              \
  c->fence_exchange_c(sendbuf, sendcount, sendtype, OVX_OUT, recvbuf, recvcount, recvtype, OVX_IN, \
                      comm)
#define OVX_FOOTPRINT_MPI_Neighbor_alltoallv_c(c)                                            \
  c->fence_alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, OVX_OUT, recvbuf, recvcounts, \
                       rdispls, recvtype, OVX_IN, comm)
#define OVX_FOOTPRINT_MPI_Neighbor_alltoallv_init_c(c)                                       \
  c->fence_alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, OVX_OUT, recvbuf, recvcounts, \
                       rdispls, recvtype, OVX_IN, comm)
#define OVX_FOOTPRINT_MPI_Neighbor_alltoallw_c(c)                                             \
  c->fence_alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, OVX_OUT, recvbuf, recvcounts, \
                       rdispls, recvtypes, OVX_IN, comm)
#define OVX_FOOTPRINT_MPI_Neighbor_alltoallw_init_c(c)                                        \
  c->fence_alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, OVX_OUT, recvbuf, recvcounts, \
                       rdispls, recvtypes, OVX_IN, comm)
#define OVX_FOOTPRINT_MPI_Reduce_c(c) \
  c->fence_reduce_c(sendbuf, recvbuf, count, datatype, root, comm)
#define OVX_FOOTPRINT_MPI_Reduce_init_c(c) \
  OVX_NOTE_OP(c, op), c->fence_reduce_c(sendbuf, recvbuf, count, datatype, root, comm)
#define OVX_FOOTPRINT_MPI_Reduce_local_c(c) c->fence_pair_c(inbuf, inoutbuf, count, datatype)
#define OVX_FOOTPRINT_MPI_Reduce_scatter_c(c) \
  c->fence_reduce_scatter_c(sendbuf, recvbuf, recvcounts, datatype, comm)
#define OVX_FOOTPRINT_MPI_Reduce_scatter_block_c(c) \
  c->fence_reduce_scatter_block_c(sendbuf, recvbuf, recvcount, datatype, comm)
#define OVX_FOOTPRINT_MPI_Reduce_scatter_block_init_c(c) \
  OVX_NOTE_OP(c, op), c->fence_reduce_scatter_block_c(sendbuf, recvbuf, recvcount, datatype, comm)
#define OVX_FOOTPRINT_MPI_Reduce_scatter_init_c(c) \
  OVX_NOTE_OP(c, op), c->fence_reduce_scatter_c(sendbuf, recvbuf, recvcounts, datatype, comm)
#define OVX_FOOTPRINT_MPI_Scan_c(c) c->fence_pair_c(sendbuf, recvbuf, count, datatype)
#define OVX_FOOTPRINT_MPI_Scan_init_c(c) \
  OVX_NOTE_OP(c, op), c->fence_pair_c(sendbuf, recvbuf, count, datatype)
#define OVX_FOOTPRINT_MPI_Scatter_c(c) \
  c->fence_scatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)
#define OVX_FOOTPRINT_MPI_Scatter_init_c(c) \
  c->fence_scatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)
#define OVX_FOOTPRINT_MPI_Scatterv_c(c)                                                          \
  c->fence_scatterv_c(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, \
                      comm)
#define OVX_FOOTPRINT_MPI_Scatterv_init_c(c)                                                     \
  c->fence_scatterv_c(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, \
                      comm)
#define OVX_FOOTPRINT_MPI_Pack_c(c) c->fence_pack_c(inbuf, incount, datatype, outbuf, outsize)
#define OVX_FOOTPRINT_MPI_Pack_external_c(c) \
  c->fence_pack_c(inbuf, incount, datatype, outbuf, outsize)
#define OVX_FOOTPRINT_MPI_Unpack_c(c) c->fence_unpack_c(inbuf, insize, outbuf, outcount, datatype)
#define OVX_FOOTPRINT_MPI_Unpack_external_c(c) \
  c->fence_unpack_c(inbuf, insize, outbuf, outcount, datatype)
#define OVX_FOOTPRINT_MPI_Bsend_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_Bsend_init_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_Buffer_attach_c(c) c->fence_bytes(buffer, size, 1)
#define OVX_FOOTPRINT_MPI_Buffer_detach_c(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Ibsend_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_Imrecv_c(c) c->fence_buffer_c(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_Irecv_c(c) c->fence_buffer_c(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_Irsend_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_Isend_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_Isendrecv_c(c)                                                   \
  c->fence_exchange_c(sendbuf, sendcount, sendtype, OVX_ONE, recvbuf, recvcount, recvtype, \
                      OVX_ONE, comm)
#define OVX_FOOTPRINT_MPI_Isendrecv_replace_c(c) c->fence_buffer_c(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_Issend_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_Mrecv_c(c) c->fence_buffer_c(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_Recv_c(c) c->fence_buffer_c(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_Recv_init_c(c) c->fence_buffer_c(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_Rsend_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_Rsend_init_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_Send_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_Send_init_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_Sendrecv_c(c)                                                    \
  c->fence_exchange_c(sendbuf, sendcount, sendtype, OVX_ONE, recvbuf, recvcount, recvtype, \
                      OVX_ONE, comm)
#define OVX_FOOTPRINT_MPI_Sendrecv_replace_c(c) c->fence_buffer_c(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_Ssend_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_Ssend_init_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_Accumulate_c(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Get_c(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Get_accumulate_c(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Put_c(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Raccumulate_c(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Rget_c(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Rget_accumulate_c(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Rput_c(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Win_allocate_c(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Win_allocate_shared_c(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Win_create_c(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_Win_shared_query_c(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_MPI_File_read_c(c) c->fence_buffer_c(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_read_all_c(c) c->fence_buffer_c(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_read_all_begin_c(c) c->fence_buffer_c(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_read_at_c(c) c->fence_buffer_c(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_read_at_all_c(c) c->fence_buffer_c(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_read_at_all_begin_c(c) c->fence_buffer_c(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_read_ordered_c(c) c->fence_buffer_c(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_read_ordered_begin_c(c) c->fence_buffer_c(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_read_shared_c(c) c->fence_buffer_c(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_write_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_File_write_all_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_File_write_all_begin_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_File_write_at_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_File_write_at_all_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_File_write_at_all_begin_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_File_write_ordered_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_File_write_ordered_begin_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_File_write_shared_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_File_iread_c(c) c->fence_buffer_c(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_iread_all_c(c) c->fence_buffer_c(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_iread_at_c(c) c->fence_buffer_c(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_iread_at_all_c(c) c->fence_buffer_c(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_iread_shared_c(c) c->fence_buffer_c(buf, count, datatype, 1)
#define OVX_FOOTPRINT_MPI_File_iwrite_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_File_iwrite_all_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_File_iwrite_at_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_File_iwrite_at_all_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_File_iwrite_shared_c(c) c->fence_buffer_c(buf, count, datatype, 0)
#define OVX_FOOTPRINT_MPI_Register_datarep_c(c) OVX_FENCE_ALL(c)
#define OVX_FOOTPRINT_OVX_Ibcast(c) c->fence_bcast(buffer, count, type, root, comm)
#define OVX_FOOTPRINT_OVX_Ireduce(c) c->fence_reduce(sendbuf, recvbuf, count, type, root, comm)
#define OVX_FOOTPRINT_OVX_Iallreduce(c) c->fence_pair(sendbuf, recvbuf, count, type)
#define OVX_FOOTPRINT_OVX_Iallgather(c)                                                  \
  c->fence_exchange(sendbuf, sendcount, sendtype, OVX_ONE, recvbuf, recvcount, recvtype, \
                    OVX_PEERS, comm)
#define OVX_FOOTPRINT_OVX_Ialltoall(c)                                                     \
  c->fence_exchange(sendbuf, sendcount, sendtype, OVX_PEERS, recvbuf, recvcount, recvtype, \
                    OVX_PEERS, comm)
#define OVX_FOOTPRINT_OVX_Igather(c) \
  c->fence_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)
#define OVX_FOOTPRINT_OVX_Iscatter(c) \
  c->fence_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)
#define OVX_FOOTPRINT_OVX_Ireduce_scatter_block(c) \
  c->fence_reduce_scatter_block(sendbuf, recvbuf, recvcount, type, comm)

#endif /* OVERLAP_INTERCEPT_MPI_FOOTPRINTS_H */
