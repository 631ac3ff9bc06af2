// C++ interface to liboverlap: a move-only Request (test() returns the status once
// complete, wait() blocks, native_handle() gives the MPI_Request), a Session that
// starts and stops the progress engine, and typed collectives over std::span.
// Header-only over the C API in overlap.h; errors become overlap::Error exceptions when
// the communicator's error handler returns (MPI_ERRORS_RETURN).
#pragma once

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
}  // namespace detail

// Starts liboverlap's progress engine (after MPI is initialised) and stops it at the end
// of the scope.
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
// a collective are never released while it still uses them.
class Request {
 public:
  Request() = default;
  explicit Request(MPI_Request r) : req_(r) {}
  Request(Request&& o) noexcept : req_(std::exchange(o.req_, MPI_REQUEST_NULL)) {}
  Request& operator=(Request&& o) noexcept {
    if (this != &o) {
      finish();
      req_ = std::exchange(o.req_, MPI_REQUEST_NULL);
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
  void finish() {
    if (req_ != MPI_REQUEST_NULL) MPI_Wait(&req_, MPI_STATUS_IGNORE);
  }
  MPI_Request req_ = MPI_REQUEST_NULL;
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
  if (send.size() != recv.size()) throw std::invalid_argument("overlap::iallreduce: sizes differ");
  MPI_Request r;
  detail::check(OVX_Iallreduce(send.data(), recv.data(), detail::count_of(recv.size()),
                               detail::datatype<T>(), op, comm, &r));
  return Request(r);
}

template <class T>
Request ireduce(std::span<const T> send, std::span<T> recv, MPI_Op op, Rank root, MPI_Comm comm) {
  MPI_Request r;
  detail::check(OVX_Ireduce(send.data(), recv.data(), detail::count_of(send.size()),
                            detail::datatype<T>(), op, root.value, comm, &r));
  return Request(r);
}

// recv holds one block of send.size() elements per rank.
template <class T>
Request iallgather(std::span<const T> send, std::span<T> recv, MPI_Comm comm) {
  MPI_Request r;
  const int n = detail::count_of(send.size());
  detail::check(OVX_Iallgather(send.data(), n, detail::datatype<T>(), recv.data(), n,
                               detail::datatype<T>(), comm, &r));
  return Request(r);
}

// send and recv hold one block of `block` elements per rank.
template <class T>
Request ialltoall(std::span<const T> send, std::span<T> recv, std::size_t block, MPI_Comm comm) {
  MPI_Request r;
  const int n = detail::count_of(block);
  detail::check(OVX_Ialltoall(send.data(), n, detail::datatype<T>(), recv.data(), n,
                              detail::datatype<T>(), comm, &r));
  return Request(r);
}

}  // namespace overlap
