#include "bench/part/part_exchange.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

namespace overlap::bench {
namespace {

// Tags by the direction the sender sends in, so the two faces between one pair of ranks
// (a grid dimension of 2 is not periodic, so there is at most one, but sweep3d and halo3d
// share the code) never match each other. multiple: one tag per partition.
constexpr int kFaceTag = 1000;       // single: kFaceTag + direction x kTagStride
constexpr int kTagStride = 1024;     // >= the largest partition count (part_bench.cpp)
constexpr int kPartitionedTag = 10;  // overlap, mpi: kPartitionedTag + direction

int face_tag(int send_direction, int k) { return kFaceTag + send_direction * kTagStride + k; }

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

std::uint64_t face_seed(long iteration, int sender, int direction) {
  return mix(mix(mix(static_cast<std::uint64_t>(iteration)) ^ static_cast<std::uint64_t>(sender)) ^
             static_cast<std::uint64_t>(direction));
}

// Writes the face's bytes (complemented when `invert`, for the receive side's poison).
void fill(std::vector<unsigned char>& buf, long iteration, int sender, int direction, bool invert) {
  const std::uint64_t seed = face_seed(iteration, sender, direction);
  const unsigned char flip = invert ? 0xff : 0;
  for (std::size_t word = 0; word * 8 < buf.size(); ++word) {
    const std::uint64_t v = mix(seed + word);
    for (std::size_t j = 0; j < 8 && word * 8 + j < buf.size(); ++j)
      buf[word * 8 + j] = static_cast<unsigned char>((v >> (8 * j)) & 0xff) ^ flip;
  }
}

std::string error_text(int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return std::string(text, static_cast<std::size_t>(len));
}

}  // namespace

// Compiled where the headers declare it (MPI 4), used where the library says it is MPI 4 at
// run time.
std::string mpi_partitioned_missing() {
  int version = 0, subversion = 0;
  MPI_Get_version(&version, &subversion);
#if MPI_VERSION >= 4
  if (version >= 4) return "";
#endif
  return fmt::format(
      "this MPI library implements MPI {}.{}, which has no partitioned communication "
      "(MPI_Psend_init is MPI 4)",
      version, subversion);
}

FaceExchange::FaceExchange(PartImpl impl, PartPattern pattern, const ProcessGrid& grid, long bytes,
                           int parts, int rank, MPI_Comm comm, const std::string& aggregation)
    : impl_(impl), bytes_(bytes), parts_(parts), rank_(rank), comm_(comm) {
  const bool sweep = pattern == PartPattern::sweep3d;
  in_faces_ = sweep ? grid.upstream(rank) : grid.faces(rank);
  const std::vector<GridFace> out = sweep ? grid.downstream(rank) : grid.faces(rank);
  const auto n = static_cast<std::size_t>(impl == PartImpl::multiple ? parts : 1);
  for (const GridFace& f : out)
    out_.push_back({f, std::vector<unsigned char>(static_cast<std::size_t>(bytes)), {}});
  for (const GridFace& f : in_faces_)
    in_.push_back({f, std::vector<unsigned char>(static_cast<std::size_t>(bytes)),
                   std::vector<MPI_Request>(n, MPI_REQUEST_NULL)});
  arrive_.assign(in_.size() * static_cast<std::size_t>(parts), -1);
  if (impl == PartImpl::mpi) error_ = mpi_partitioned_missing();
  if (impl == PartImpl::overlap || impl == PartImpl::mpi) {
    for (Face& f : out_) init_partitioned(f, true, aggregation);
    for (Face& f : in_) init_partitioned(f, false, aggregation);
  }
}

void FaceExchange::init_partitioned(Face& f, bool send, const std::string& aggregation) {
  if (!error_.empty()) return;
  const MPI_Count count = bytes_ / parts_;
  // The receiver names the direction its neighbour sends in.
  const int tag = kPartitionedTag + (send ? f.face.direction : f.face.direction ^ 1);
  if (impl_ == PartImpl::overlap) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "overlap_aggregation", aggregation.c_str());
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    const int rc = send ? OVX_Psend_init(f.buf.data(), parts_, count, MPI_BYTE, f.face.peer, tag,
                                         comm_, info, &f.ovx)
                        : OVX_Precv_init(f.buf.data(), parts_, count, MPI_BYTE, f.face.peer, tag,
                                         comm_, info, &f.ovx);
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_ARE_FATAL);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS) error_ = error_text(rc);
  }
#if MPI_VERSION >= 4
  if (impl_ == PartImpl::mpi) {
    if (send)
      MPI_Psend_init(f.buf.data(), parts_, count, MPI_BYTE, f.face.peer, tag, comm_, MPI_INFO_NULL,
                     &f.persistent);
    else
      MPI_Precv_init(f.buf.data(), parts_, count, MPI_BYTE, f.face.peer, tag, comm_, MPI_INFO_NULL,
                     &f.persistent);
  }
#endif
}

FaceExchange::~FaceExchange() {
  for (std::vector<Face>* side : {&out_, &in_}) {
    for (Face& f : *side) {
      if (f.ovx != OVX_PREQUEST_NULL) OVX_Prequest_free(&f.ovx);
      if (f.persistent != MPI_REQUEST_NULL) MPI_Request_free(&f.persistent);
    }
  }
}

void FaceExchange::prepare(long iteration) {
  for (Face& f : out_) fill(f.buf, iteration, rank_, f.face.direction, false);
  for (Face& f : in_) fill(f.buf, iteration, f.face.peer, f.face.direction ^ 1, true);
  std::fill(arrive_.begin(), arrive_.end(), -1.0);
  const long part = bytes_ / parts_;
  for (Face& f : in_) {
    const int from = f.face.direction ^ 1;
    if (impl_ == PartImpl::single)
      MPI_Irecv(f.buf.data(), static_cast<int>(bytes_), MPI_BYTE, f.face.peer, face_tag(from, 0),
                comm_, &f.parts[0]);
    if (impl_ == PartImpl::multiple) {
      for (int k = 0; k < parts_; ++k)
        MPI_Irecv(f.buf.data() + part * k, static_cast<int>(part), MPI_BYTE, f.face.peer,
                  face_tag(from, k), comm_, &f.parts[static_cast<std::size_t>(k)]);
    }
  }
  for (std::vector<Face>* side : {&in_, &out_}) {
    for (Face& f : *side) {
      if (impl_ == PartImpl::overlap) OVX_Start(f.ovx, &f.active);
      if (impl_ == PartImpl::mpi) {
        f.active = f.persistent;
        MPI_Start(&f.active);
      }
    }
  }
}

void FaceExchange::receive_all(const GlobalClock& clock) {
  for (std::size_t left = in_.size(); left > 0; --left) {
    std::vector<MPI_Request> r;
    for (Face& f : in_) r.push_back(f.parts[0]);
    int i = 0;
    MPI_Waitany(static_cast<int>(r.size()), r.data(), &i, MPI_STATUS_IGNORE);
    const double t = clock.now();
    in_[static_cast<std::size_t>(i)].parts[0] = MPI_REQUEST_NULL;
    for (int k = 0; k < parts_; ++k) arrive_[static_cast<std::size_t>(i * parts_ + k)] = t;
  }
}

bool FaceExchange::arrived(Face& f, int k) {
  int flag = 0;
  if (impl_ == PartImpl::multiple)
    MPI_Test(&f.parts[static_cast<std::size_t>(k)], &flag, MPI_STATUS_IGNORE);
  if (impl_ == PartImpl::overlap) OVX_Parrived(f.ovx, k, &flag);
#if MPI_VERSION >= 4
  if (impl_ == PartImpl::mpi) MPI_Parrived(f.active, k, &flag);
#endif
  return flag != 0;
}

void FaceExchange::await_partition(int k, const GlobalClock& clock) {
  for (std::size_t left = in_.size(); left > 0;) {
    for (std::size_t i = 0; i < in_.size(); ++i) {
      double& seen = arrive_[i * static_cast<std::size_t>(parts_) + static_cast<std::size_t>(k)];
      if (seen >= 0 || !arrived(in_[i], k)) continue;
      seen = clock.now();
      --left;
    }
  }
}

void FaceExchange::ready(int k) {
  const long part = bytes_ / parts_;
  if (impl_ == PartImpl::multiple) {
    std::vector<MPI_Request> r(out_.size(), MPI_REQUEST_NULL);
    for (std::size_t i = 0; i < out_.size(); ++i)
      MPI_Isend(out_[i].buf.data() + part * k, static_cast<int>(part), MPI_BYTE, out_[i].face.peer,
                face_tag(out_[i].face.direction, k), comm_, &r[i]);
    MPI_Waitall(static_cast<int>(r.size()), r.data(), MPI_STATUSES_IGNORE);
  }
  for (Face& f : out_) {
    if (impl_ == PartImpl::overlap) OVX_Pready(k, f.ovx);
#if MPI_VERSION >= 4
    if (impl_ == PartImpl::mpi) MPI_Pready(k, f.active);
#endif
  }
}

void FaceExchange::finish() {
  std::vector<MPI_Request> r;
  if (impl_ == PartImpl::single) {
    for (Face& f : out_) {
      r.push_back(MPI_REQUEST_NULL);
      MPI_Isend(f.buf.data(), static_cast<int>(bytes_), MPI_BYTE, f.face.peer,
                face_tag(f.face.direction, 0), comm_, &r.back());
    }
  }
  for (Face& f : in_) r.insert(r.end(), f.parts.begin(), f.parts.end());
  for (std::vector<Face>* side : {&in_, &out_})
    for (Face& f : *side) r.push_back(f.active);
  MPI_Waitall(static_cast<int>(r.size()), r.data(), MPI_STATUSES_IGNORE);
  for (Face& f : in_) std::fill(f.parts.begin(), f.parts.end(), MPI_REQUEST_NULL);
  for (std::vector<Face>* side : {&in_, &out_})
    for (Face& f : *side) f.active = MPI_REQUEST_NULL;
}

std::string FaceExchange::check(long iteration) const {
  const long part = bytes_ / parts_;
  std::vector<unsigned char> sent(static_cast<std::size_t>(bytes_));
  for (const Face& f : in_) {
    const int from = f.face.direction ^ 1;
    fill(sent, iteration, f.face.peer, from, false);
    if (sent == f.buf) continue;
    for (long b = 0; b < bytes_; ++b) {
      const unsigned char want = sent[static_cast<std::size_t>(b)];
      if (f.buf[static_cast<std::size_t>(b)] == want) continue;
      return fmt::format(
          "rank {} received wrong data from rank {} (direction {}) in iteration {}: partition "
          "{} byte {} is {:#04x}, sent {:#04x}",
          rank_, f.face.peer, from, iteration, b / part, b % part,
          f.buf[static_cast<std::size_t>(b)], want);
    }
  }
  return "";
}

}  // namespace overlap::bench
