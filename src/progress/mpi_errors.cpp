#include "progress/mpi_errors.hpp"

#include <array>
#include <atomic>
#include <cstdio>
#include <mutex>

namespace overlap::progress {
namespace {

struct Codes {
  std::mutex mu;
  bool ready = false;                      // guarded by mu
  std::array<int, kErrorKinds> classes{};  // guarded by mu
  std::array<std::array<int, kCodesPerClass>, kErrorKinds> codes{};
  std::array<unsigned, kErrorKinds> next{};  // ring position per class
  std::atomic<int> cancel_refused{MPI_ERR_OTHER};
  std::atomic<int> abandoned{MPI_ERR_OTHER};
};

constexpr std::array<int, kErrorKinds> kClasses = {MPI_ERR_ARG,     MPI_ERR_ROOT,  MPI_ERR_COUNT,
                                                   MPI_ERR_TYPE,    MPI_ERR_OP,    MPI_ERR_COMM,
                                                   MPI_ERR_REQUEST, MPI_ERR_OTHER, MPI_ERR_OTHER};

// MPICH 4.0.2 accepts MPI_Add_error_code under a predefined class but does not mark the
// code as added, so MPI_Error_string returns one of its own messages for it, not ours
// (checked). There each kind gets a class of its own instead (MPI_Add_error_class): the
// message stays, the class is not one MPI defines (docs/liboverlap.md, "What still differs").
#if defined(MPICH)
constexpr bool kPredefinedClasses = false;
#else
constexpr bool kPredefinedClasses = true;
#endif

// Never destroyed: callbacks may ask for codes during static destruction.
Codes& codes() {
  static Codes* c = new Codes;
  return *c;
}

bool mpi_usable() {
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  return initialized != 0 && finalized == 0;
}

void set_string(int code, const std::string& text) {
  std::string s = "liboverlap: " + text;
  if (s.size() >= MPI_MAX_ERROR_STRING) s.resize(MPI_MAX_ERROR_STRING - 1);
  PMPI_Add_error_string(code, s.c_str());
}

bool prepare_locked(Codes& c) {
  if (c.ready) return true;
  if (!mpi_usable()) return false;
  for (std::size_t k = 0; k < kClasses.size(); ++k) {
    c.classes[k] = kClasses[k];
    if (!kPredefinedClasses && PMPI_Add_error_class(&c.classes[k]) != MPI_SUCCESS) return false;
    for (int& code : c.codes[k]) {
      if (PMPI_Add_error_code(c.classes[k], &code) != MPI_SUCCESS) return false;
    }
  }
  // Two extra codes of the request class, with strings that never change.
  const int request_class = c.classes[static_cast<std::size_t>(ErrorKind::request)];
  int refused = MPI_ERR_OTHER, abandoned = MPI_ERR_OTHER;
  if (PMPI_Add_error_code(request_class, &refused) != MPI_SUCCESS ||
      PMPI_Add_error_code(request_class, &abandoned) != MPI_SUCCESS)
    return false;
  set_string(refused,
             "MPI_Cancel on the request of a nonblocking collective is erroneous (MPI 4.0 "
             "sec. 6.12); the collective goes on: complete it with MPI_Wait or MPI_Test");
  set_string(abandoned,
             "the collective was abandoned before it completed (still in flight at "
             "MPI_Finalize, or given up with OVX_Request_abandon); its result is undefined");
  c.cancel_refused.store(refused, std::memory_order_release);
  c.abandoned.store(abandoned, std::memory_order_release);
  c.ready = true;
  return true;
}

}  // namespace

bool prepare_error_codes() {
  Codes& c = codes();
  std::lock_guard lock(c.mu);
  return prepare_locked(c);
}

int make_error_code(ErrorKind kind, const std::string& message) {
  Codes& c = codes();
  std::lock_guard lock(c.mu);
  if (!prepare_locked(c)) {
    std::fprintf(stderr, "liboverlap: %s\n", message.c_str());
    return MPI_ERR_OTHER;
  }
  const auto k = static_cast<std::size_t>(kind);
  const int code = c.codes[k][c.next[k]++ % kCodesPerClass];
  set_string(code, message);
  return code;
}

int report_error(MPI_Comm comm, ErrorKind kind, const std::string& message) {
  const int code = make_error_code(kind, message);
  if (code != MPI_ERR_OTHER || mpi_usable())
    PMPI_Comm_call_errhandler(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, code);
  return code;
}

int error_class(ErrorKind kind) {
  if (kPredefinedClasses) return kClasses[static_cast<std::size_t>(kind)];
  Codes& c = codes();
  std::lock_guard lock(c.mu);
  return c.ready ? c.classes[static_cast<std::size_t>(kind)] : MPI_ERR_OTHER;
}

int cancel_refused_code() { return codes().cancel_refused.load(std::memory_order_acquire); }
int abandoned_code() { return codes().abandoned.load(std::memory_order_acquire); }

int report_call_error(const char* fn, MPI_Comm comm, ErrorKind kind, const std::string& why) {
  return report_error(comm, kind, std::string(fn) + ": " + why);
}

int refuse_in_forked_child(const char* fn) {
  std::fprintf(stderr,
               "liboverlap: %s: liboverlap cannot be used in a child process created by fork() "
               "(its progress engine and MPI belong to the parent)\n",
               fn);
  return MPI_ERR_OTHER;
}

}  // namespace overlap::progress
