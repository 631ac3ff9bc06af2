/* UCX's memory hooks mirrored from the shim's wrappers onto libc's functions
 * (hook_mirror.h). */
#define _GNU_SOURCE
#include "intercept/shim/hook_mirror.h"

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char* const hookable_names[OVX_HOOKABLE] = {"munmap", "mremap", "madvise", "mmap"};

static pthread_mutex_t mirror_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ovx_hook_mirror mirror_state;
static int warned;

/* Bytes compared: more than any patch form below writes. */
#define CODE_BYTES 16

struct code_at {
  uintptr_t addr;
  off_t offset; /* in the file, -1 when not found */
};

static int find_offset(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  struct code_at* c = data;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
    const uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && lo <= c->addr && c->addr + CODE_BYTES <= lo + ph->p_filesz) {
      c->offset = (off_t)(c->addr - lo + ph->p_offset);
      return 1;
    }
  }
  return 0;
}

/* 1 when the code at `fn` differs from what the file it was loaded from holds there. The
 * reads are system calls: the shim's pread() wrapper would settle transfers. */
static int patched(int fd, const void* fn) {
  struct code_at c = {(uintptr_t)fn, -1};
  unsigned char file[CODE_BYTES];
  dl_iterate_phdr(find_offset, &c);
  if (c.offset < 0 || syscall(SYS_pread64, fd, file, sizeof file, c.offset) != sizeof file) return 0;
  return memcmp(file, fn, sizeof file) != 0;
}

#if defined(__x86_64__)
/* Where a patched function's first instruction jumps: the forms UCX's bistro writes (jmp
 * rel32; movabs r11/rax, imm64 + jmp r11/rax; jmp [rip+0] + imm64). 0 when the code starts
 * otherwise. */
static uintptr_t jump_target(const unsigned char* p) {
  uint64_t imm = 0;
  if (p[0] == 0xe9) {
    int32_t rel = 0;
    memcpy(&rel, p + 1, sizeof rel);
    return (uintptr_t)p + 5 + (intptr_t)rel;
  }
  if (p[0] == 0x49 && p[1] == 0xbb && p[10] == 0x41 && p[11] == 0xff && p[12] == 0xe3) {
    memcpy(&imm, p + 2, sizeof imm);
    return (uintptr_t)imm;
  }
  if (p[0] == 0x48 && p[1] == 0xb8 && p[10] == 0xff && p[11] == 0xe0) {
    memcpy(&imm, p + 2, sizeof imm);
    return (uintptr_t)imm;
  }
  if (p[0] == 0xff && p[1] == 0x25 && p[2] == 0 && p[3] == 0 && p[4] == 0 && p[5] == 0) {
    memcpy(&imm, p + 6, sizeof imm);
    return (uintptr_t)imm;
  }
  return 0;
}

/* The jump UCX writes where it can: jmp rel32, 5 bytes. Another thread inside the system
 * call of libc's function resumes at its instruction after `syscall` (byte 7 in glibc's
 * munmap and madvise), which these 5 bytes leave whole; written with one aligned 8-byte
 * store where the function starts 8-aligned (glibc's do), so no thread sees half of it.
 * Only for a target beyond 2 GiB the 13 bytes of movabs r11, target; jmp r11. */
#define NEAR_BYTES 5
#define FAR_BYTES 13
static int jump_bytes(const void* at, uintptr_t target) {
  const intptr_t rel = (intptr_t)(target - ((uintptr_t)at + NEAR_BYTES));
  return rel == (int32_t)rel ? NEAR_BYTES : FAR_BYTES;
}

/* The protection changes are system calls, not the shim's mprotect() wrapper (which calls
 * back here). */
static int write_jump(void* at, uintptr_t target) {
  unsigned char code[FAR_BYTES] = {0x49, 0xbb, 0, 0, 0, 0, 0, 0, 0, 0, 0x41, 0xff, 0xe3};
  const int n = jump_bytes(at, target);
  if (n == NEAR_BYTES) {
    const int32_t rel = (int32_t)(target - ((uintptr_t)at + NEAR_BYTES));
    code[0] = 0xe9;
    memcpy(code + 1, &rel, sizeof rel);
  } else {
    memcpy(code + 2, &target, sizeof target);
  }
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  const uintptr_t lo = (uintptr_t)at & ~(page - 1);
  const uintptr_t hi = ((uintptr_t)at + FAR_BYTES + page - 1) & ~(page - 1);
  if (syscall(SYS_mprotect, lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) return 0;
  if (n == NEAR_BYTES && (uintptr_t)at % 8 == 0) {
    uint64_t word = 0;
    memcpy(&word, at, sizeof word);
    memcpy(&word, code, NEAR_BYTES); /* x86-64 is little-endian: the first 5 bytes */
    __atomic_store_n((uint64_t*)at, word, __ATOMIC_SEQ_CST);
  } else {
    memcpy(at, code, (size_t)n);
  }
  __builtin___clear_cache((char*)at, (char*)at + n);
  return syscall(SYS_mprotect, lo, hi - lo, PROT_READ | PROT_EXEC) == 0;
}

/* A jump into the shim or libc is not UCX's hook: code of ours that differs from the file
 * because the file was replaced during the run (a reinstall). Mirroring it would send
 * libc's function into our wrapper and back. */
static int hook_is_foreign(uintptr_t hook, const void* wrapper, const void* libc_function) {
  Dl_info h, w, l;
  if (dladdr((void*)hook, &h) == 0) return 1; /* anonymous code: a trampoline */
  const int ours = dladdr(wrapper, &w) != 0 && w.dli_fbase == h.dli_fbase;
  const int libcs = dladdr(libc_function, &l) != 0 && l.dli_fbase == h.dli_fbase;
  return !ours && !libcs;
}

/* Puts the jump found at the start of `wrapper` into libc's `name`: 1, or 0 and why not. */
static int mirror_one(const unsigned char* wrapper, void* libc, const char* name,
                      struct ovx_hook_mirror* m) {
  const uintptr_t hook = jump_target(wrapper);
  void* theirs = dlsym(libc, name);
  Dl_info info;
  const ElfW(Sym)* sym = NULL;
  const char* why = NULL;
  if (hook == 0) {
    why = "the patch on overlap-run's wrapper was not recognised";
  } else if (theirs == NULL) {
    why = "libc does not define it";
  } else if (!hook_is_foreign(hook, wrapper, theirs)) {
    why = "overlap-run's file changed during the run; its wrappers cannot be checked";
  } else if (jump_target(theirs) == hook) {
    return 1; /* mirrored before */
  } else if (dladdr1(theirs, &info, (void**)&sym, RTLD_DL_SYMENT) == 0 || sym == NULL ||
             sym->st_size < (ElfW(Xword))jump_bytes(theirs, hook)) {
    why = "libc's function is too short to patch";
  } else if (!write_jump(theirs, hook)) {
    why = "libc's code could not be made writable";
  } else {
    return 1;
  }
  snprintf(m->failure, sizeof m->failure, "%s: %s", name, why);
  return 0;
}
#endif

/* Devices whose registrations UCX caches across calls: where one exists, a cache that
 * misses glibc's own unmappings can hand out stale pages. */
static int registering_device(void) {
  if (access("/dev/knem", F_OK) == 0 || access("/dev/xpmem", F_OK) == 0) return 1;
  DIR* d = opendir("/sys/class/infiniband");
  if (d == NULL) return 0;
  int any = 0;
  for (struct dirent* e; (e = readdir(d)) != NULL;) any |= e->d_name[0] != '.';
  closedir(d);
  return any;
}

/* MPI may not be initialised (UCX patches from inside MPI_Init): the launcher's rank. */
static int rank_zero_or_unknown(void) {
  const char* rank = getenv("OMPI_COMM_WORLD_RANK");
  if (rank == NULL) rank = getenv("PMI_RANK");
  return rank == NULL || atoi(rank) == 0;
}

void ovx_mirror_memory_hooks(void* const wrappers[OVX_HOOKABLE]) {
  pthread_mutex_lock(&mirror_lock);
  struct ovx_hook_mirror now = {0, 0, ""};
  Dl_info self;
  const int fd = dladdr(wrappers[0], &self) != 0 && self.dli_fname != NULL
                     ? open(self.dli_fname, O_RDONLY | O_CLOEXEC)
                     : -1;
  if (fd < 0) { /* (a relative preload path after a chdir, say): what we knew stays */
    now = mirror_state;
    snprintf(now.failure, sizeof now.failure,
             "overlap-run's own file could not be read to check its wrappers");
  }
  void* libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
  for (int i = 0; i < OVX_HOOKABLE && fd >= 0; i++) {
    if (!patched(fd, wrappers[i])) continue;
    now.displaced++;
#if defined(__x86_64__)
    if (libc != NULL) {
      now.mirrored += mirror_one(wrappers[i], libc, hookable_names[i], &now);
    } else {
      snprintf(now.failure, sizeof now.failure, "libc.so.6 is not loaded");
    }
#else
    snprintf(now.failure, sizeof now.failure, "mirrored on x86-64 only");
#endif
  }
  if (libc != NULL) dlclose(libc);
  if (fd >= 0) close(fd);
  mirror_state = now;
  if (now.failure[0] != '\0' && !warned && registering_device() && rank_zero_or_unknown()) {
    warned = 1;
    fprintf(stderr,
            "overlap-run: warning: UCX's memory hooks could not all be checked on "
            "overlap-run's wrappers or put on libc's functions (%s): UCX's registration cache "
            "may not learn of memory glibc unmaps itself, and with the RDMA/knem/xpmem device "
            "here a "
            "later buffer at the same address may be sent from or received into stale pages "
            "(docs/overlap-run.md, \"UCX's memory hooks\").\n",
            now.failure);
  }
  pthread_mutex_unlock(&mirror_lock);
}

struct ovx_hook_mirror ovx_memory_hooks(void) {
  pthread_mutex_lock(&mirror_lock);
  const struct ovx_hook_mirror s = mirror_state;
  pthread_mutex_unlock(&mirror_lock);
  return s;
}

int ovx_covers_wrapper(void* const wrappers[OVX_HOOKABLE], const void* addr, unsigned long len) {
  for (int i = 0; i < OVX_HOOKABLE; i++) {
    const uintptr_t w = (uintptr_t)wrappers[i];
    if ((uintptr_t)addr <= w && w < (uintptr_t)addr + len) return 1;
  }
  return 0;
}
