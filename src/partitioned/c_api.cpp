// The partitioned part of liboverlap's C API (include/overlap/overlap.h): MPI's argument
// checks for MPI_Psend_init and friends, then a PartitionedRequest behind an OVX_Prequest.
// These are also the calls an interposition library makes for a program's own
// MPI_Psend_init family (README.md, "For an interceptor").
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>

#include "overlap/overlap.h"
#include "partitioned/intercept_abi.h"
#include "partitioned/partitioned_request.hpp"
#include "progress/datatype_layout.hpp"
#include "progress/engine_runtime.hpp"
#include "progress/mpi_errors.hpp"

struct OVX_Prequest_s {
  std::shared_ptr<overlap::partitioned::PartitionedRequest> impl;
};

namespace {

using namespace overlap;
using partitioned::PartitionedRequest;
using partitioned::RequestArgs;
using partitioned::Side;
using progress::ErrorKind;

int fail(const char* fn, MPI_Comm comm, ErrorKind kind, const std::string& why) {
  return progress::report_call_error(fn, comm, kind, why);
}

int refuse_in_child(const char* fn) { return progress::refuse_in_forked_child(fn); }

std::string peer_text(int peer) {
  if (peer == MPI_ANY_SOURCE) return "MPI_ANY_SOURCE";
  if (peer == MPI_PROC_NULL) return "MPI_PROC_NULL";
  return std::to_string(peer);
}

// The aggregation policy: MPI_Info key overlap_aggregation, else OVERLAP_PART_AGGREGATION;
// "" when neither is set.
std::string aggregation_text(MPI_Info info) {
  if (info != MPI_INFO_NULL) {
    int len = 0, found = 0;
    char key[] = "overlap_aggregation";
    PMPI_Info_get_valuelen(info, key, &len, &found);
    if (found != 0) {
      std::string value(static_cast<std::size_t>(len) + 1, '\0');
      PMPI_Info_get(info, key, len + 1, value.data(), &found);
      value.resize(static_cast<std::size_t>(len));
      return value;
    }
  }
  const char* env = std::getenv("OVERLAP_PART_AGGREGATION");
  return env != nullptr && *env != '\0' ? env : "";
}

// Checks every argument of MPI_Psend_init/MPI_Precv_init; "" or why it is refused.
std::string check_args(const void* buf, int partitions, MPI_Count count, MPI_Datatype type,
                       int peer, int tag, MPI_Comm comm, MPI_Info info, Side side, RequestArgs& a) {
  const char* peer_name = side == Side::send ? "dest" : "source";
  if (partitions < 1)
    return "partitions=" + std::to_string(partitions) + " is not allowed (allowed: 1 or more)";
  if (count < 0) return "count=" + std::to_string(count) + " is negative";
  if (type == MPI_DATATYPE_NULL) return "datatype is MPI_DATATYPE_NULL";
  int size = 0;
  MPI_Aint lb = 0, extent = 0;
  if (PMPI_Type_size(type, &size) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(type, &lb, &extent) != MPI_SUCCESS)
    return "datatype is not a valid MPI datatype";
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter != 0) return "intercommunicators are not supported";
  int nranks = 0;
  PMPI_Comm_size(comm, &nranks);
  if (peer == MPI_ANY_SOURCE)
    return std::string(peer_name) +
           "=MPI_ANY_SOURCE: wildcards are not allowed in partitioned communication";
  if (peer != MPI_PROC_NULL && (peer < 0 || peer >= nranks))
    return std::string(peer_name) + "=" + peer_text(peer) +
           " is not a rank of the communicator (allowed: 0.." + std::to_string(nranks - 1) +
           " or MPI_PROC_NULL)";
  int* ub = nullptr;
  int flag = 0;
  PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
  a.tags = partitioned::wire_tags(flag != 0 && ub != nullptr ? *ub : 32767);
  if (tag == MPI_ANY_TAG)
    return "tag=MPI_ANY_TAG: wildcards are not allowed in partitioned communication";
  if (tag < 0 || tag >= a.tags.user_tag_limit)
    return "tag=" + std::to_string(tag) + " is out of range (allowed: 0.." +
           std::to_string(a.tags.user_tag_limit - 1) +
           "; liboverlap uses the tags above for its partitioned messages)";
  const auto bytes = static_cast<unsigned long long>(count) * static_cast<unsigned long long>(size);
  if (count > 0 && size > 0 &&
      bytes / static_cast<unsigned long long>(size) != static_cast<unsigned long long>(count))
    return "count=" + std::to_string(count) + " overflows";
  if (bytes > 0 && buf == nullptr) return "buf is NULL but partitions hold data";
  std::string error;
  const std::string aggregation = aggregation_text(info);
  a.aggregation_default = aggregation.empty();
  a.aggregation =
      partitioned::parse_aggregation(a.aggregation_default ? "none" : aggregation, error);
  if (!error.empty()) return error;
  a.side = side;
  a.buf = const_cast<std::byte*>(static_cast<const std::byte*>(buf) + lb);
  // Any other layout goes through MPI's packing into a staging area of the request's
  // (partitioned_request.hpp), so both sides of a pair agree whatever each one's type.
  if (bytes > 0 && !progress::bytes_in_memory_order(type)) {
    MPI_Aint type_lb = 0;
    PMPI_Type_get_extent(type, &type_lb, &a.extent);
    a.user_buf = const_cast<void*>(buf);
    a.count = count;
    a.buf = nullptr;
    if (PMPI_Type_dup(type, &a.packed_type) != MPI_SUCCESS) return "datatype cannot be duplicated";
  }
  a.partitions = static_cast<std::uint32_t>(partitions);
  a.partition_bytes = bytes;
  a.peer = peer;
  a.tag = tag;
  a.comm = comm;
  return "";
}

// `comm` carries the messages; `errors` is whose error handler the request's errors go to
// (the same for the OVX_ calls; overlap-run's routing passes the program's communicator
// there and a duplicate of its own for the messages).
int init(const char* fn, Side side, const void* buf, int partitions, MPI_Count count,
         MPI_Datatype type, int peer, int tag, MPI_Comm comm, MPI_Comm errors, MPI_Info info,
         OVX_Prequest* request) {
  if (progress::in_forked_child()) return refuse_in_child(fn);
  progress::safe_point();
  if (comm == MPI_COMM_NULL)
    return fail(fn, errors, ErrorKind::communicator, "communicator is MPI_COMM_NULL");
  if (request == nullptr) return fail(fn, errors, ErrorKind::argument, "request is NULL");
  *request = OVX_PREQUEST_NULL;
  RequestArgs a;
  if (std::string why = check_args(buf, partitions, count, type, peer, tag, comm, info, side, a);
      !why.empty())
    return fail(fn, errors, ErrorKind::argument, why);
  a.error_comm = errors;
  const progress::EngineUse use = progress::acquire_engine(std::nullopt);
  if (use.engine == nullptr) {
    if (a.packed_type != MPI_DATATYPE_NULL) PMPI_Type_free(&a.packed_type);
    return fail(fn, errors, ErrorKind::state, use.error);
  }
  std::string error;
  auto impl = PartitionedRequest::create(a, *use.engine, error);
  if (!impl) {
    progress::release_engine();
    return fail(fn, errors, ErrorKind::argument, error);
  }
  *request = new OVX_Prequest_s{std::move(impl)};
  return MPI_SUCCESS;
}

int refuse_null(const char* fn) {
  return fail(fn, MPI_COMM_WORLD, ErrorKind::request, "request is NULL (OVX_PREQUEST_NULL)");
}

}  // namespace

extern "C" {

int OVX_Psend_init(const void* buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                   int dest, int tag, MPI_Comm comm, MPI_Info info, OVX_Prequest* request) {
  return init("OVX_Psend_init", Side::send, buf, partitions, count, datatype, dest, tag, comm, comm,
              info, request);
}

int OVX_Precv_init(void* buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source,
                   int tag, MPI_Comm comm, MPI_Info info, OVX_Prequest* request) {
  return init("OVX_Precv_init", Side::recv, buf, partitions, count, datatype, source, tag, comm,
              comm, info, request);
}

int OVX_Start(OVX_Prequest request, MPI_Request* epoch) {
  if (progress::in_forked_child()) return refuse_in_child("OVX_Start");
  progress::safe_point();
  if (request == OVX_PREQUEST_NULL) return refuse_null("OVX_Start");
  PartitionedRequest& r = *request->impl;
  if (epoch == nullptr)
    return fail("OVX_Start", r.error_comm(), ErrorKind::argument, "epoch is NULL");
  // A refused start leaves *epoch alone: it may be the active epoch's request.
  if (std::string why = r.start(epoch); !why.empty())
    return fail("OVX_Start", r.error_comm(), ErrorKind::request, why);
  return MPI_SUCCESS;
}

int OVX_Startall(int count, OVX_Prequest requests[], MPI_Request epochs[]) {
  if (count < 0)
    return fail("OVX_Startall", MPI_COMM_WORLD, ErrorKind::argument,
                "count=" + std::to_string(count) + " is negative");
  if (count > 0 && (requests == nullptr || epochs == nullptr))
    return fail("OVX_Startall", MPI_COMM_WORLD, ErrorKind::argument, "requests or epochs is NULL");
  for (int i = 0; i < count; ++i) {
    if (const int rc = OVX_Start(requests[i], &epochs[i]); rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

int OVX_Pready(int partition, OVX_Prequest request) {
  if (request == OVX_PREQUEST_NULL) return refuse_null("OVX_Pready");
  if (std::string why = request->impl->pready(partition); !why.empty())
    return fail("OVX_Pready", request->impl->error_comm(), ErrorKind::request, why);
  return MPI_SUCCESS;
}

int OVX_Pready_range(int partition_low, int partition_high, OVX_Prequest request) {
  if (request == OVX_PREQUEST_NULL) return refuse_null("OVX_Pready_range");
  PartitionedRequest& r = *request->impl;
  if (partition_low > partition_high || partition_low < 0 || partition_high >= r.partitions())
    return fail("OVX_Pready_range", r.error_comm(), ErrorKind::argument,
                "partition_low=" + std::to_string(partition_low) +
                    ", partition_high=" + std::to_string(partition_high) +
                    " is not a range of partitions (allowed: 0 <= low <= high <= " +
                    std::to_string(r.partitions() - 1) + ")");
  if (std::string why = r.pready_range(partition_low, partition_high); !why.empty())
    return fail("OVX_Pready_range", r.error_comm(), ErrorKind::request, why);
  return MPI_SUCCESS;
}

int OVX_Pready_list(int length, const int partitions[], OVX_Prequest request) {
  if (request == OVX_PREQUEST_NULL) return refuse_null("OVX_Pready_list");
  PartitionedRequest& r = *request->impl;
  if (length < 0 || (length > 0 && partitions == nullptr))
    return fail("OVX_Pready_list", r.error_comm(), ErrorKind::argument,
                "length=" + std::to_string(length) + " with partitions " +
                    (partitions == nullptr ? "NULL" : "given") + " is not a list");
  const std::span<const int> list(partitions, static_cast<std::size_t>(length));
  if (std::string why = r.pready_list(list); !why.empty())
    return fail("OVX_Pready_list", r.error_comm(), ErrorKind::request, why);
  return MPI_SUCCESS;
}

int OVX_Parrived(OVX_Prequest request, int partition, int* flag) {
  if (progress::in_forked_child()) return refuse_in_child("OVX_Parrived");
  if (request == OVX_PREQUEST_NULL) return refuse_null("OVX_Parrived");
  PartitionedRequest& r = *request->impl;
  if (std::string why = r.handshake_error(); !why.empty())
    return fail("OVX_Parrived", r.error_comm(), ErrorKind::argument, why);
  if (std::string why = r.parrived(partition, flag); !why.empty())
    return fail("OVX_Parrived", r.error_comm(), ErrorKind::request, why);
  return MPI_SUCCESS;
}

int OVX_Prequest_free(OVX_Prequest* request) {
  if (progress::in_forked_child()) return refuse_in_child("OVX_Prequest_free");
  progress::safe_point();
  if (request == nullptr || *request == OVX_PREQUEST_NULL) return refuse_null("OVX_Prequest_free");
  if (std::string why = (*request)->impl->check_free(); !why.empty())
    return fail("OVX_Prequest_free", (*request)->impl->error_comm(), ErrorKind::request, why);
  // Messages still in flight (the handshake) keep the request alive in the engine.
  delete *request;
  *request = OVX_PREQUEST_NULL;
  progress::release_engine();
  return MPI_SUCCESS;
}

int ovx_private_partitioned_init(int send, void* buf, int partitions, MPI_Count count,
                                 MPI_Datatype datatype, int peer, int tag, MPI_Comm wire,
                                 MPI_Comm errors, MPI_Info info, OVX_Prequest* request) {
  return init(send != 0 ? "OVX_Psend_init" : "OVX_Precv_init", send != 0 ? Side::send : Side::recv,
              buf, partitions, count, datatype, peer, tag, wire, errors, info, request);
}

}  // extern "C"
