// Owning RAII handle for a duplicated communicator. Every module that talks over MPI dups
// its communicator so that its traffic can never match another module's messages.
#pragma once

#include <mpi.h>

#include <utility>

namespace overlap::mpi {

class Communicator {
 public:
  Communicator() = default;
  // Duplicates `parent` (collective over parent).
  static Communicator duplicate(MPI_Comm parent) {
    Communicator c;
    MPI_Comm_dup(parent, &c.comm_);
    MPI_Comm_rank(c.comm_, &c.rank_);
    MPI_Comm_size(c.comm_, &c.size_);
    return c;
  }
  // MPI_Comm_split of `parent` (collective over parent); a null handle where `color` is
  // MPI_UNDEFINED.
  static Communicator split(MPI_Comm parent, int color, int key) {
    Communicator c;
    MPI_Comm_split(parent, color, key, &c.comm_);
    if (c.comm_ != MPI_COMM_NULL) {
      MPI_Comm_rank(c.comm_, &c.rank_);
      MPI_Comm_size(c.comm_, &c.size_);
    }
    return c;
  }
  Communicator(Communicator&& other) noexcept { swap(other); }
  Communicator& operator=(Communicator&& other) noexcept {
    Communicator(std::move(other)).swap(*this);
    return *this;
  }
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  ~Communicator() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
  }

  MPI_Comm native_handle() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  void swap(Communicator& other) noexcept {
    std::swap(comm_, other.comm_);
    std::swap(rank_, other.rank_);
    std::swap(size_, other.size_);
  }
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 0;
};

}  // namespace overlap::mpi
