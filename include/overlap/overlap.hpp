// C++ interface to liboverlap: a move-only Request (test() returns the status once
// complete, wait() blocks, native_handle() gives the MPI_Request), a Session that
// starts and stops the application's use of the progress engine, and typed collectives
// over std::span (sizes checked against the communicator; overlap::in_place for
// MPI_IN_PLACE). Header-only over the C API in overlap.h; errors become overlap::Error
// exceptions when the communicator's error handler returns (MPI_ERRORS_RETURN), size
// mismatches std::invalid_argument.
#pragma once

#if __cplusplus < 202002L
#error \
    "<overlap/overlap.hpp> needs C++20 (std::span): compile with -std=c++20 or later (the CMake package overlap::overlap sets it; the C API <overlap/overlap.h> needs no C++)"
#endif

// The deprecated MPI C++ bindings would need the MPI C++ library at link time; this
// header uses the C API only.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <complex>
#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "overlap/overlap.h"

namespace overlap {

enum class Progress {
  automatic = OVX_PROGRESS_DEFAULT,
  caller = OVX_PROGRESS_CALLER,
  shared = OVX_PROGRESS_SHARED,
  dedicated = OVX_PROGRESS_DEDICATED
};

struct Rank {
  int value;
};

class Error : public std::runtime_error {
 public:
  explicit Error(int code) : std::runtime_error(message(code)), code_(code) {}
  int code() const { return code_; }

 private:
  static std::string message(int code) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(code, text, &len);
    return std::string(text, static_cast<std::size_t>(len));
  }
  int code_;
};

namespace detail {
inline void check(int rc) {
  if (rc != MPI_SUCCESS) throw Error(rc);
}
template <class T>
MPI_Datatype datatype() {
  if constexpr (std::is_same_v<T, char>)
    return MPI_CHAR;
  else if constexpr (std::is_same_v<T, signed char>)
    return MPI_SIGNED_CHAR;
  else if constexpr (std::is_same_v<T, unsigned char>)
    return MPI_UNSIGNED_CHAR;
  else if constexpr (std::is_same_v<T, short>)
    return MPI_SHORT;
  else if constexpr (std::is_same_v<T, unsigned short>)
    return MPI_UNSIGNED_SHORT;
  else if constexpr (std::is_same_v<T, int>)
    return MPI_INT;
  else if constexpr (std::is_same_v<T, unsigned>)
    return MPI_UNSIGNED;
  else if constexpr (std::is_same_v<T, long>)
    return MPI_LONG;
  else if constexpr (std::is_same_v<T, unsigned long>)
    return MPI_UNSIGNED_LONG;
  else if constexpr (std::is_same_v<T, long long>)
    return MPI_LONG_LONG;
  else if constexpr (std::is_same_v<T, unsigned long long>)
    return MPI_UNSIGNED_LONG_LONG;
  else if constexpr (std::is_same_v<T, float>)
    return MPI_FLOAT;
  else if constexpr (std::is_same_v<T, double>)
    return MPI_DOUBLE;
  else if constexpr (std::is_same_v<T, long double>)
    return MPI_LONG_DOUBLE;
  else if constexpr (std::is_same_v<T, bool>)
    return MPI_CXX_BOOL;
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return MPI_CXX_FLOAT_COMPLEX;
  else if constexpr (std::is_same_v<T, std::complex<double>>)
    return MPI_CXX_DOUBLE_COMPLEX;
  else
    static_assert(!sizeof(T), "no predefined MPI datatype for this type");
}
inline int count_of(std::size_t n) {
  if (n > static_cast<std::size_t>(INT32_MAX))
    throw std::length_error("overlap: more than INT_MAX elements");
  return static_cast<int>(n);
}
inline std::size_t comm_size(MPI_Comm comm) {
  int p = 0;
  check(MPI_Comm_size(comm, &p));
  return static_cast<std::size_t>(p);
}
// Throws unless `n` elements are P blocks of one size; returns the block size.
inline std::size_t blocks_of(const char* fn, const char* what, std::size_t n, MPI_Comm comm) {
  const std::size_t p = comm_size(comm);
  if (n % p != 0) {
    throw std::invalid_argument(std::string("overlap::") + fn + ": " + what + " holds " +
                                std::to_string(n) + " elements, not a multiple of the " +
                                std::to_string(p) + " ranks");
  }
  return n / p;
}
// OVX_Iallgather and OVX_Ialltoall with MPI_IN_PLACE: `data` holds one block per rank.
using BlockCollective = int (*)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm,
                                MPI_Request*);
template <class T>
MPI_Request in_place_blocks(const char* fn, BlockCollective call, std::span<T> data,
                            MPI_Comm comm) {
  const int n = count_of(blocks_of(fn, "data", data.size(), comm));
  MPI_Request r;
  check(call(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, data.data(), n, datatype<T>(), comm, &r));
  return r;
}
inline void expect_size(const char* fn, const char* what, std::size_t got, std::size_t want) {
  if (got != want) {
    throw std::invalid_argument(std::string("overlap::") + fn + ": " + what + " holds " +
                                std::to_string(got) + " elements; it must hold " +
                                std::to_string(want));
  }
}
}  // namespace detail

// Tag for MPI_IN_PLACE: the data are both input and result.
struct InPlace {};
inline constexpr InPlace in_place{};

// The application's use of liboverlap (after MPI is initialised): OVX_Init and, at the end
// of the scope, OVX_Finalize. Requests may outlive it: they stay valid and complete.
class Session {
 public:
  explicit Session(Progress policy = Progress::automatic) {
    detail::check(OVX_Init(static_cast<OVX_Progress>(policy)));
  }
  ~Session() { OVX_Finalize(); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  Progress policy() const {
    OVX_Progress p;
    detail::check(OVX_Get_progress(&p));
    return static_cast<Progress>(p);
  }
};

// Owns one MPI request. Destroying an active request waits for it, so buffers handed to
// a collective are never released while it still uses them; except
//  - during exception unwinding, where waiting could hang (the failure may stop other
//    ranks too): a liboverlap collective is abandoned (OVX_Request_abandon: nothing writes
//    its buffers any more), another MPI request is cancelled and freed;
//  - after MPI_Finalize, when no MPI call is allowed: the request is dropped.
class Request {
 public:
  Request() = default;
  explicit Request(MPI_Request r) : req_(r) {}
  Request(Request&& o) noexcept
      : req_(std::exchange(o.req_, MPI_REQUEST_NULL)), exceptions_(o.exceptions_) {}
  Request& operator=(Request&& o) noexcept {
    if (this != &o) {
      finish();
      req_ = std::exchange(o.req_, MPI_REQUEST_NULL);
      exceptions_ = o.exceptions_;
    }
    return *this;
  }
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;
  ~Request() { finish(); }

  std::optional<MPI_Status> test() {
    int done = 0;
    MPI_Status status;
    detail::check(MPI_Test(&req_, &done, &status));
    if (!done) return std::nullopt;
    return status;
  }
  MPI_Status wait() {
    MPI_Status status;
    detail::check(MPI_Wait(&req_, &status));
    return status;
  }
  bool active() const { return req_ != MPI_REQUEST_NULL; }
  MPI_Request native_handle() const { return req_; }
  MPI_Request release() { return std::exchange(req_, MPI_REQUEST_NULL); }

 private:
  void finish() noexcept {
    if (req_ == MPI_REQUEST_NULL) return;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) {
      req_ = MPI_REQUEST_NULL;
      return;
    }
    if (std::uncaught_exceptions() > exceptions_) {
      if (OVX_Request_abandon(&req_) != MPI_SUCCESS && req_ != MPI_REQUEST_NULL) {
        MPI_Cancel(&req_);
        MPI_Request_free(&req_);
      }
      req_ = MPI_REQUEST_NULL;
      return;
    }
    MPI_Wait(&req_, MPI_STATUS_IGNORE);
  }
  MPI_Request req_ = MPI_REQUEST_NULL;
  int exceptions_ = std::uncaught_exceptions();  // in flight when the request was made
};

inline Request ibarrier(MPI_Comm comm) {
  MPI_Request r;
  detail::check(OVX_Ibarrier(comm, &r));
  return Request(r);
}

template <class T>
Request ibcast(std::span<T> data, Rank root, MPI_Comm comm) {
  MPI_Request r;
  detail::check(OVX_Ibcast(data.data(), detail::count_of(data.size()), detail::datatype<T>(),
                           root.value, comm, &r));
  return Request(r);
}

template <class T>
Request iallreduce(std::span<const T> send, std::span<T> recv, MPI_Op op, MPI_Comm comm) {
  detail::expect_size("iallreduce", "recv", recv.size(), send.size());
  MPI_Request r;
  detail::check(OVX_Iallreduce(send.data(), recv.data(), detail::count_of(recv.size()),
                               detail::datatype<T>(), op, comm, &r));
  return Request(r);
}

// `data` is this rank's contribution and becomes the result.
template <class T>
Request iallreduce(InPlace, std::span<T> data, MPI_Op op, MPI_Comm comm) {
  MPI_Request r;
  detail::check(OVX_Iallreduce(MPI_IN_PLACE, data.data(), detail::count_of(data.size()),
                               detail::datatype<T>(), op, comm, &r));
  return Request(r);
}

// `recv` is used at the root only (elsewhere it may be empty).
template <class T>
Request ireduce(std::span<const T> send, std::span<T> recv, MPI_Op op, Rank root, MPI_Comm comm) {
  int rank = 0;
  detail::check(MPI_Comm_rank(comm, &rank));
  if (rank == root.value)
    detail::expect_size("ireduce", "recv at the root", recv.size(), send.size());
  MPI_Request r;
  detail::check(OVX_Ireduce(send.data(), recv.data(), detail::count_of(send.size()),
                            detail::datatype<T>(), op, root.value, comm, &r));
  return Request(r);
}

// At the root only: `data` is the root's contribution and becomes the result (the other
// ranks call the form with a send span).
template <class T>
Request ireduce(InPlace, std::span<T> data, MPI_Op op, Rank root, MPI_Comm comm) {
  MPI_Request r;
  detail::check(OVX_Ireduce(MPI_IN_PLACE, data.data(), detail::count_of(data.size()),
                            detail::datatype<T>(), op, root.value, comm, &r));
  return Request(r);
}

// recv holds one block of send.size() elements per rank.
template <class T>
Request iallgather(std::span<const T> send, std::span<T> recv, MPI_Comm comm) {
  detail::expect_size("iallgather", "recv", recv.size(), send.size() * detail::comm_size(comm));
  MPI_Request r;
  const int n = detail::count_of(send.size());
  detail::check(OVX_Iallgather(send.data(), n, detail::datatype<T>(), recv.data(), n,
                               detail::datatype<T>(), comm, &r));
  return Request(r);
}

// `data` holds one block per rank; this rank's block is in place already.
template <class T>
Request iallgather(InPlace, std::span<T> data, MPI_Comm comm) {
  return Request(detail::in_place_blocks("iallgather", OVX_Iallgather, data, comm));
}

// send and recv hold one block of `block` elements per rank.
template <class T>
Request ialltoall(std::span<const T> send, std::span<T> recv, std::size_t block, MPI_Comm comm) {
  const std::size_t all = block * detail::comm_size(comm);
  detail::expect_size("ialltoall", "send", send.size(), all);
  detail::expect_size("ialltoall", "recv", recv.size(), all);
  MPI_Request r;
  const int n = detail::count_of(block);
  detail::check(OVX_Ialltoall(send.data(), n, detail::datatype<T>(), recv.data(), n,
                              detail::datatype<T>(), comm, &r));
  return Request(r);
}

// `data` holds one block per rank: the blocks to send, replaced by the blocks received.
template <class T>
Request ialltoall(InPlace, std::span<T> data, MPI_Comm comm) {
  return Request(detail::in_place_blocks("ialltoall", OVX_Ialltoall, data, comm));
}

// Partitioned point-to-point (OVX_Psend_init/OVX_Precv_init): move-only, frees the
// request when destroyed (an active epoch must have been completed first: the epoch's
// Request waits for it when destroyed). `data` is cut into `partitions` equal parts.
class Partitioned {
 public:
  Partitioned(Partitioned&& o) noexcept : req_(std::exchange(o.req_, OVX_PREQUEST_NULL)) {}
  Partitioned& operator=(Partitioned&& o) noexcept {
    if (this != &o) {
      reset();
      req_ = std::exchange(o.req_, OVX_PREQUEST_NULL);
    }
    return *this;
  }
  Partitioned(const Partitioned&) = delete;
  Partitioned& operator=(const Partitioned&) = delete;
  ~Partitioned() { reset(); }

  // Starts an epoch; the Request completes it.
  Request start() {
    MPI_Request r;
    detail::check(OVX_Start(req_, &r));
    return Request(r);
  }
  OVX_Prequest native_handle() const { return req_; }

 protected:
  Partitioned() = default;
  static int partition_count(std::size_t elements, int partitions) {
    if (partitions < 1 || elements % static_cast<std::size_t>(partitions) != 0)
      throw std::invalid_argument("overlap::Partitioned: " + std::to_string(elements) +
                                  " elements cannot be cut into " + std::to_string(partitions) +
                                  " equal partitions");
    return detail::count_of(elements / static_cast<std::size_t>(partitions));
  }
  OVX_Prequest req_ = OVX_PREQUEST_NULL;

 private:
  void reset() noexcept {
    if (req_ == OVX_PREQUEST_NULL) return;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) OVX_Prequest_free(&req_);
    req_ = OVX_PREQUEST_NULL;
  }
};

template <class T>
class PartitionedSend : public Partitioned {
 public:
  PartitionedSend(std::span<const T> data, int partitions, Rank dest, int tag, MPI_Comm comm,
                  MPI_Info info = MPI_INFO_NULL) {
    detail::check(OVX_Psend_init(data.data(), partitions, partition_count(data.size(), partitions),
                                 detail::datatype<T>(), dest.value, tag, comm, info, &req_));
  }
  // Thread-safe: any thread may mark its partition ready.
  void ready(int partition) { detail::check(OVX_Pready(partition, req_)); }
  void ready_range(int low, int high) { detail::check(OVX_Pready_range(low, high, req_)); }
  void ready_list(std::span<const int> partitions) {
    detail::check(OVX_Pready_list(detail::count_of(partitions.size()), partitions.data(), req_));
  }
};

template <class T>
class PartitionedRecv : public Partitioned {
 public:
  PartitionedRecv(std::span<T> data, int partitions, Rank source, int tag, MPI_Comm comm,
                  MPI_Info info = MPI_INFO_NULL) {
    detail::check(OVX_Precv_init(data.data(), partitions, partition_count(data.size(), partitions),
                                 detail::datatype<T>(), source.value, tag, comm, info, &req_));
  }
  bool arrived(int partition) {
    int flag = 0;
    detail::check(OVX_Parrived(req_, partition, &flag));
    return flag != 0;
  }
};

}  // namespace overlap
