#include "intercept/ucx_hook_mirror.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <optional>

#include "intercept/core_runtime.hpp"

namespace overlap::intercept {

namespace {

// Where a patched function's first instruction jumps: the forms UCX's bistro writes
// (jmp rel32; movabs r11/rax, imm64 + jmp r11/rax; jmp [rip+0] + imm64). nullopt when the
// code starts otherwise.
std::optional<std::uintptr_t> jump_target(const unsigned char* p) {
  std::uint64_t imm = 0;
  if (p[0] == 0xe9) {
    std::int32_t rel = 0;
    std::memcpy(&rel, p + 1, sizeof rel);
    return reinterpret_cast<std::uintptr_t>(p) + 5 + static_cast<std::intptr_t>(rel);
  }
  if (p[0] == 0x49 && p[1] == 0xbb && p[10] == 0x41 && p[11] == 0xff && p[12] == 0xe3) {
    std::memcpy(&imm, p + 2, sizeof imm);
    return imm;
  }
  if (p[0] == 0x48 && p[1] == 0xb8 && p[10] == 0xff && p[11] == 0xe0) {
    std::memcpy(&imm, p + 2, sizeof imm);
    return imm;
  }
  if (p[0] == 0xff && p[1] == 0x25 && p[2] == 0 && p[3] == 0 && p[4] == 0 && p[5] == 0) {
    std::memcpy(&imm, p + 6, sizeof imm);
    return imm;
  }
  return std::nullopt;
}

// movabs r11, target; jmp r11 (r11: scratch in the calling convention, no argument).
constexpr std::size_t kPatchBytes = 13;

bool write_jump(void* at, std::uintptr_t target) {
  unsigned char code[kPatchBytes] = {0x49, 0xbb, 0, 0, 0, 0, 0, 0, 0, 0, 0x41, 0xff, 0xe3};
  std::memcpy(code + 2, &target, sizeof target);
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const std::uintptr_t lo = reinterpret_cast<std::uintptr_t>(at) & ~(page - 1);
  const std::uintptr_t hi =
      (reinterpret_cast<std::uintptr_t>(at) + kPatchBytes + page - 1) & ~(page - 1);
  auto* start = reinterpret_cast<void*>(lo);
  if (mprotect(start, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) return false;
  std::memcpy(at, code, kPatchBytes);
  __builtin___clear_cache(static_cast<char*>(at), static_cast<char*>(at) + kPatchBytes);
  return mprotect(start, hi - lo, PROT_READ | PROT_EXEC) == 0;
}

}  // namespace

HookMirror mirror_ucx_hooks() {
  HookMirror m;
#if defined(__x86_64__)
  void* libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
  if (libc == nullptr) {
    m.failure = "libc.so.6 not found";
    return m;
  }
  for (const char* name : {"munmap", "mremap", "madvise", "mmap"}) {
    // The shim's wrapper (the first definition) and libc's own.
    auto* ours = static_cast<const unsigned char*>(dlsym(RTLD_DEFAULT, name));
    void* theirs = dlsym(libc, name);
    if (ours == nullptr || theirs == nullptr || ours == theirs) continue;
    const std::optional<std::uintptr_t> hook = jump_target(ours);
    if (!hook) continue;  // not patched (or not in a form we know)
    ++m.displaced;
    const std::optional<std::uintptr_t> already =
        jump_target(static_cast<const unsigned char*>(theirs));
    if (already == hook) {
      ++m.mirrored;
      continue;
    }
    Dl_info info;
    void* entry = nullptr;
    const auto* sym = static_cast<const ElfW(Sym)*>(nullptr);
    if (dladdr1(theirs, &info, &entry, RTLD_DL_SYMENT) != 0)
      sym = static_cast<const ElfW(Sym)*>(entry);
    if (sym == nullptr || sym->st_size < kPatchBytes) {
      m.failure = std::string("libc's ") + name + " is too short to patch";
      continue;
    }
    if (!write_jump(theirs, *hook)) {
      m.failure = std::string("libc's ") + name + " could not be made writable";
      continue;
    }
    ++m.mirrored;
  }
  dlclose(libc);
#else
  m.failure = "only done on x86-64";
#endif
  return m;
}

}  // namespace overlap::intercept
