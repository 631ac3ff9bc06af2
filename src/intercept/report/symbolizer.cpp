#include "intercept/report/symbolizer.hpp"

#include <cxxabi.h>
#include <elfutils/libdwfl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace overlap::intercept {

namespace {
std::string demangle(const char* name) {
  if (name == nullptr) return {};
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || d == nullptr) return name;
  std::string out = d;
  std::free(d);
  return out;
}

std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}
}  // namespace

std::string SourceLocation::text() const {
  if (!file.empty() && line > 0) return base_name(file) + ":" + std::to_string(line);
  char off[32];
  std::snprintf(off, sizeof off, "+0x%lx", static_cast<unsigned long>(offset));
  const std::string where = base_name(object) + off;
  return function.empty() ? where : function + " (" + where + ")";
}

struct Symbolizer::State {
  Dwfl* dwfl = nullptr;
  Dwfl_Callbacks callbacks{};
  char* debuginfo_path = nullptr;
};

Symbolizer::Symbolizer() : state_(std::make_unique<State>()) {
  state_->callbacks.find_elf = dwfl_linux_proc_find_elf;
  state_->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
  state_->callbacks.debuginfo_path = &state_->debuginfo_path;
  state_->dwfl = dwfl_begin(&state_->callbacks);
  if (state_->dwfl == nullptr) return;
  if (dwfl_linux_proc_report(state_->dwfl, getpid()) != 0 ||
      dwfl_report_end(state_->dwfl, nullptr, nullptr) != 0) {
    dwfl_end(state_->dwfl);
    state_->dwfl = nullptr;
  }
}

Symbolizer::~Symbolizer() {
  if (state_->dwfl != nullptr) dwfl_end(state_->dwfl);
}

SourceLocation Symbolizer::locate(std::uintptr_t address, bool is_return_address) const {
  SourceLocation loc;
  const Dwarf_Addr at = is_return_address && address > 0 ? address - 1 : address;
  if (state_->dwfl == nullptr) return loc;
  Dwfl_Module* mod = dwfl_addrmodule(state_->dwfl, at);
  if (mod == nullptr) return loc;
  Dwarf_Addr start = 0;
  const char* name =
      dwfl_module_info(mod, nullptr, &start, nullptr, nullptr, nullptr, nullptr, nullptr);
  if (name != nullptr) loc.object = name;
  loc.offset = static_cast<std::uintptr_t>(at - start);
  loc.function = demangle(dwfl_module_addrname(mod, at));
  if (Dwfl_Line* line = dwfl_module_getsrc(mod, at)) {
    int lineno = 0;
    if (const char* file = dwfl_lineinfo(line, nullptr, &lineno, nullptr, nullptr, nullptr)) {
      loc.file = file;
      loc.line = lineno;
    }
  }
  return loc;
}

}  // namespace overlap::intercept
