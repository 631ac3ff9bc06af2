#include "collectives/mpi_errors.hpp"

#include <map>
#include <mutex>

namespace overlap::collectives {

int report_error(MPI_Comm comm, const std::string& message) {
  static std::mutex mu;
  static std::map<std::string, int> codes;  // one code per distinct message
  int code = MPI_ERR_OTHER;
  {
    std::lock_guard lock(mu);
    auto it = codes.find(message);
    if (it != codes.end()) {
      code = it->second;
    } else {
      int error_class = 0;
      if (MPI_Add_error_class(&error_class) == MPI_SUCCESS &&
          MPI_Add_error_code(error_class, &code) == MPI_SUCCESS) {
        std::string text = "liboverlap: " + message;
        if (text.size() >= MPI_MAX_ERROR_STRING) text.resize(MPI_MAX_ERROR_STRING - 1);
        MPI_Add_error_string(code, text.c_str());
        codes.emplace(message, code);
      }
    }
  }
  MPI_Comm_call_errhandler(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, code);
  return code;
}

}  // namespace overlap::collectives
