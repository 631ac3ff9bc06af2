// Code addresses to source locations, at MPI_Finalize (never in the fault handler, which
// records raw addresses only). elfutils' libdw reads the loaded objects' DWARF line
// tables: file and line when the program has debug info, else the function, else the
// object and offset.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace overlap::intercept {

struct SourceLocation {
  std::string file;  // as compiled (may be relative); empty without debug info
  int line = 0;
  std::string function;       // demangled where possible; may be empty
  std::string object;         // the executable or library
  std::uintptr_t offset = 0;  // within the object
  std::string text() const;   // "solver.c:212", or "exchange (app+0x1234)"
};

class Symbolizer {
 public:
  Symbolizer();
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;
  // `is_return_address`: a call's return address points after the call; look up the
  // instruction before it so the line is the call's.
  SourceLocation locate(std::uintptr_t address, bool is_return_address) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace overlap::intercept
