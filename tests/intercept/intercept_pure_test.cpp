// The interception layer's pure parts: page reference counting, the memory map and the
// end-page rules, status encoding, settings, launcher plans and the report summary.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <map>
#include <random>

#include "base/usage_error.hpp"
#include "intercept/launch/launch_plan.hpp"
#include "intercept/launch/settings.hpp"
#include "intercept/placement/move_rules.hpp"
#include "intercept/report/report_summary.hpp"
#include "intercept/runtime/buffer_memory.hpp"
#include "intercept/runtime/protection_map.hpp"
#include "intercept/runtime/status_codec.hpp"
#include "intercept/shim/range_set.h"

namespace overlap::intercept {
namespace {

constexpr std::uintptr_t P = 4096;
constexpr int RW = PROT_READ | PROT_WRITE;

TEST(ProtectionMap, SendsShareReadOnlyPagesUntilTheLastIsDone) {
  ProtectionMap m;
  EXPECT_EQ(m.add(0, 4 * P, Guard::read_only),
            (std::vector<ProtectionChange>{{0, 4 * P, PROT_READ}}));
  // A second send over pages 2..6: only the new pages change.
  EXPECT_EQ(m.add(2 * P, 6 * P, Guard::read_only),
            (std::vector<ProtectionChange>{{4 * P, 6 * P, PROT_READ}}));
  EXPECT_EQ(m.remove(0, 4 * P, Guard::read_only), (std::vector<ProtectionChange>{{0, 2 * P, RW}}));
  EXPECT_EQ(m.protection_at(3 * P), PROT_READ);
  EXPECT_EQ(m.remove(2 * P, 6 * P, Guard::read_only),
            (std::vector<ProtectionChange>{{2 * P, 6 * P, RW}}));
  EXPECT_TRUE(m.empty());
}

TEST(ProtectionMap, ReceiveWinsOverSendAndGivesBackReadOnly) {
  ProtectionMap m;
  m.add(0, 2 * P, Guard::read_only);
  EXPECT_EQ(m.add(P, 3 * P, Guard::no_access),
            (std::vector<ProtectionChange>{{P, 3 * P, PROT_NONE}}));
  EXPECT_EQ(m.remove(P, 3 * P, Guard::no_access),
            (std::vector<ProtectionChange>{{P, 2 * P, PROT_READ}, {2 * P, 3 * P, RW}}));
  EXPECT_THROW(m.remove(5 * P, 6 * P, Guard::no_access), std::logic_error);
}

TEST(ProtectionMap, RandomisedAgainstPerPageCounts) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  ProtectionMap m;
  std::map<std::uintptr_t, std::pair<int, int>> pages;  // page -> (ro, none)
  std::vector<std::tuple<std::uintptr_t, std::uintptr_t, Guard>> live;
  std::map<std::uintptr_t, int> actual;  // page -> protection after applying the changes
  auto want = [&](std::uintptr_t p) {
    auto [ro, none] = pages[p];
    return none > 0 ? PROT_NONE : ro > 0 ? PROT_READ : RW;
  };
  for (int step = 0; step < 3000; ++step) {
    std::vector<ProtectionChange> changes;
    if (live.empty() || rng() % 2 == 0) {
      const std::uintptr_t lo = rng() % 40, hi = lo + 1 + rng() % 8;
      const Guard g = rng() % 3 == 0 ? Guard::no_access : Guard::read_only;
      live.emplace_back(lo * P, hi * P, g);
      for (auto p = lo; p < hi; ++p) (g == Guard::read_only ? pages[p].first : pages[p].second)++;
      changes = m.add(lo * P, hi * P, g);
    } else {
      const std::size_t i = rng() % live.size();
      auto [lo, hi, g] = live[i];
      live.erase(live.begin() + static_cast<long>(i));
      for (auto p = lo / P; p < hi / P; ++p)
        (g == Guard::read_only ? pages[p].first : pages[p].second)--;
      changes = m.remove(lo, hi, g);
    }
    for (std::size_t i = 0; i < changes.size(); ++i) {
      if (i > 0) ASSERT_LT(changes[i - 1].hi, changes[i].lo + 1);
      for (auto a = changes[i].lo; a < changes[i].hi; a += P) {
        ASSERT_NE(actual.count(a / P) ? actual[a / P] : RW, changes[i].prot)
            << "a change that changes nothing";
        actual[a / P] = changes[i].prot;
      }
    }
    for (std::uintptr_t p = 0; p < 50; ++p) {
      ASSERT_EQ(actual.count(p) ? actual[p] : RW, want(p)) << "page " << p << " step " << step;
      ASSERT_EQ(m.protection_at(p * P), want(p));
    }
  }
  EXPECT_LT(m.segment_count(), 200u);
}

TEST(StatusCodec, PendingMarkRoundTripsAndRealStatusesCarryNone) {
  MPI_Status s{};
  s.MPI_SOURCE = 3;
  s.MPI_TAG = 7;
  EXPECT_FALSE(pending_token(s).has_value());
  for (std::uint32_t token : {1u, 2u, 0x7fffffffu, 0xffffffffu}) {
    encode_pending(s, token);
    ASSERT_TRUE(pending_token(s).has_value());
    EXPECT_EQ(*pending_token(s), token);
    EXPECT_EQ(s.MPI_SOURCE, 3);
    EXPECT_EQ(s.MPI_TAG, 7);
    const MPI_Status copy = s;  // survives copies
    EXPECT_EQ(*pending_token(copy), token);
  }
  // What MPI puts in a status: counts, cancelled 0/1.
  MPI_Status real{};
#if defined(OPEN_MPI)
  real._cancelled = 1;
  real._ucount = 123456789;
#else
  real.count_lo = 0x4f565800;
  real.count_hi_and_cancelled = 1;
#endif
  EXPECT_FALSE(pending_token(real).has_value());
}

TEST(BufferMemory, ParsesMapsAndClassifies) {
  const auto regions = parse_maps(
      "00400000-00452000 r-xp 00000000 08:02 173521      /usr/bin/app\n"
      "00652000-00653000 rw-p 00052000 08:02 173521      /usr/bin/app\n"
      "00653000-00700000 rw-p 00000000 00:00 0           [heap]\n"
      "7f0000000000-7f0000100000 rw-s 00000000 00:05 1 /dev/shm/x\n"
      "7f0000100000-7f0000200000 rw-p 00000000 00:00 0 \n"
      "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0           [stack]\n");
  ASSERT_EQ(regions.size(), 6u);
  EXPECT_EQ(regions[2].name, "[heap]");
  EXPECT_EQ(regions[4].name, "");
  EXPECT_EQ(classify(regions, 0x652000, 0x700000), MemoryKind::private_writable);  // spans two
  EXPECT_EQ(classify(regions, 0x400000, 0x401000), MemoryKind::read_only);
  EXPECT_EQ(classify(regions, 0x7f0000000000, 0x7f0000001000), MemoryKind::shared);
  EXPECT_EQ(classify(regions, 0x7ffd00000000, 0x7ffd00001000), MemoryKind::stack);
  EXPECT_EQ(classify(regions, 0x700000, 0x701000), MemoryKind::unmapped);
  EXPECT_EQ(classify(regions, 0x6ff000, 0x701000), MemoryKind::unmapped);
}

// A fake memory with a glibc mmapped block: header {lead, size | IS_MMAPPED} at data - 16.
struct FakeHeap {
  std::map<std::uintptr_t, std::uint64_t> words;
  WordReader reader() {
    return [this](std::uintptr_t a) -> std::optional<std::uint64_t> {
      auto it = words.find(a);
      if (it == words.end()) return std::nullopt;
      return it->second;
    };
  }
};

TEST(BufferMemory, EndPagesOwnedOnlyWhenProvably) {
  const MappingCheck anywhere = [](std::uintptr_t, std::uintptr_t) { return true; };
  FakeHeap heap;
  const std::uintptr_t base = 100 * P;
  heap.words[base] = 0;                 // lead
  heap.words[base + 8] = 64 * P | 0x2;  // size | IS_MMAPPED
  const std::uintptr_t data = base + 16;
  // The whole block: both ends owned; the tail's slack only without MPI_THREAD_MULTIPLE.
  Edges e = classify_edges(data, data + 10 * P, P, true, heap.reader(), anywhere);
  EXPECT_TRUE(e.head_owned);
  EXPECT_TRUE(e.tail_owned);
  EXPECT_EQ(e.block_lo, base);  // the block's mapping, for the move rules
  EXPECT_EQ(e.block_hi, base + 64 * P);
  e = classify_edges(data, data + 10 * P, P, false, heap.reader(), anywhere);
  EXPECT_TRUE(e.head_owned);
  EXPECT_FALSE(e.tail_owned);
  // Beyond the block's mapping: not this block.
  e = classify_edges(data, base + 65 * P, P, true, heap.reader(), anywhere);
  EXPECT_FALSE(e.head_owned);
  // An arena chunk (no IS_MMAPPED), or an interior pointer: not owned.
  heap.words[base + 8] = 64 * P | 0x1;
  EXPECT_FALSE(classify_edges(data, data + P, P, true, heap.reader(), anywhere).head_owned);
  EXPECT_FALSE(classify_edges(data + 8, data + P, P, true, heap.reader(), anywhere).head_owned);
  // Page-aligned ends need nothing.
  e = classify_edges(7 * P, 9 * P, P, false, heap.reader(), anywhere);
  EXPECT_TRUE(e.head_owned && e.tail_owned);
  e = classify_edges(7 * P, 9 * P - 8, P, true, heap.reader(), anywhere);
  EXPECT_TRUE(e.head_owned);
  EXPECT_FALSE(e.tail_owned);
  // posix_memalign: lead bytes before the header, the mapping still page aligned.
  FakeHeap aligned;
  aligned.words[base + 48] = 48;                   // lead
  aligned.words[base + 56] = (16 * P - 48) | 0x2;  // size
  e = classify_edges(base + 64, base + 64 + 5 * P, P, true, aligned.reader(), anywhere);
  EXPECT_TRUE(e.head_owned && e.tail_owned);
  EXPECT_EQ(e.block_lo, base);
  EXPECT_EQ(e.block_hi, base + 16 * P);
  // Page-aligned ends without a block: none named.
  EXPECT_EQ(classify_edges(7 * P, 9 * P, P, true, heap.reader(), anywhere).block_hi, 0u);
  // What looks like a header, but the block it describes is not in an anonymous mapping
  // (program data inside a file mapping or the brk heap): not owned.
  const MappingCheck nowhere = [](std::uintptr_t, std::uintptr_t) { return false; };
  EXPECT_FALSE(
      classify_edges(base + 64, base + 64 + 5 * P, P, true, aligned.reader(), nowhere).head_owned);
  // Unreadable header.
  EXPECT_FALSE(
      classify_edges(base + 5000, base + 9000, P, true, FakeHeap{}.reader(), anywhere).head_owned);
}

// A receive's count may run past the block the program allocated (MPI writes only the
// message): page-aligned ends own the pages only when no glibc block starting at lo ends
// before hi.
TEST(BufferMemory, AlignedEndsPastTheirBlockAreNotOwned) {
  const MappingCheck anywhere = [](std::uintptr_t, std::uintptr_t) { return true; };
  const std::uintptr_t lo = 200 * P;
  // An arena block of 64 bytes at lo: size 80 | PREV_INUSE; the next block says in use.
  FakeHeap heap;
  heap.words[lo - 8] = 80 | 0x1;
  heap.words[lo - 16 + 80 + 8] = 0x1001;
  Edges e = classify_edges(lo, lo + 16 * P, P, true, heap.reader(), anywhere);
  EXPECT_TRUE(e.head_owned);
  EXPECT_FALSE(e.tail_owned);
  // The next block does not count this one in use: not a block header, alignment decides.
  heap.words[lo - 16 + 80 + 8] = 0x1000;
  EXPECT_TRUE(classify_edges(lo, lo + 16 * P, P, true, heap.reader(), anywhere).tail_owned);
  // A block as long as the count (and one longer): owned.
  FakeHeap exact;
  exact.words[lo - 8] = (16 * P + 16) | 0x1;
  exact.words[lo - 16 + 16 * P + 16 + 8] = 0x21;
  EXPECT_TRUE(classify_edges(lo, lo + 16 * P, P, true, exact.reader(), anywhere).tail_owned);
  EXPECT_TRUE(classify_edges(lo, lo + 8 * P, P, true, exact.reader(), anywhere).tail_owned);
  EXPECT_FALSE(classify_edges(lo, lo + 17 * P, P, true, exact.reader(), anywhere).tail_owned);
  // A block from mmap() (posix_memalign: lead bytes before the header) shorter than hi.
  FakeHeap mapped;
  mapped.words[lo - 16] = P - 16;             // lead: the mapping starts a page before lo
  mapped.words[lo - 8] = (4 * P + 16) | 0x2;  // size: the mapping is 5 pages
  EXPECT_TRUE(classify_edges(lo, lo + 4 * P, P, true, mapped.reader(), anywhere).tail_owned);
  EXPECT_FALSE(classify_edges(lo, lo + 8 * P, P, true, mapped.reader(), anywhere).tail_owned);
  // Nothing readable before lo (a mapping's first page): alignment decides.
  EXPECT_TRUE(classify_edges(lo, lo + 8 * P, P, true, FakeHeap{}.reader(), anywhere).tail_owned);
}

TEST(BufferMemory, AnonymousPrivateMappingsOnly) {
  const auto regions = parse_maps(
      "1000-3000 rw-p 00000000 00:00 0 \n"
      "3000-4000 rw-p 00000000 00:00 0          [heap]\n"
      "5000-7000 rw-s 00000000 00:05 12         /dev/shm/x\n"
      "8000-9000 r--p 00000000 00:00 0 \n"
      "9000-a000 rw-p 00001000 08:01 77         /lib/libx.so\n");
  EXPECT_TRUE(anonymous_private(regions, 0x1000, 0x3000));
  EXPECT_TRUE(anonymous_private(regions, 0x2000, 0x3000));
  EXPECT_FALSE(anonymous_private(regions, 0x2000, 0x4000));  // runs into [heap]
  EXPECT_FALSE(anonymous_private(regions, 0x3000, 0x4000));  // [heap]
  EXPECT_FALSE(anonymous_private(regions, 0x5000, 0x6000));  // shared
  EXPECT_FALSE(anonymous_private(regions, 0x8000, 0x9000));  // read-only
  EXPECT_FALSE(anonymous_private(regions, 0x9000, 0xa000));  // a file
  EXPECT_FALSE(anonymous_private(regions, 0x0, 0x1000));     // unmapped
}

TEST(MoveRules, OnlyWholeMappingsTheProgramMadeAreMovedInto) {
  constexpr std::size_t P = 4096;
  const Mapping anon{0x10000, 0x30000, false, false, false, P};
  // Known whole (an mmap() of its own, a glibc block), alone in its mapping or merged with
  // neighbours by the kernel.
  EXPECT_EQ(range_verdict(anon, 0x10000, 0x30000, true, P), std::nullopt);
  EXPECT_EQ(range_verdict(anon, 0x11000, 0x20000, true, P), std::nullopt);
  // Not known whole: even a whole kernel mapping may be a part the program split off with
  // mprotect, and a move would keep it apart for good.
  EXPECT_EQ(range_verdict(anon, 0x10000, 0x30000, false, P), ReceiveCopy::part_of_mapping);
  EXPECT_EQ(range_verdict(anon, 0x10000, 0x20000, false, P), ReceiveCopy::part_of_mapping);
  // Beyond the mapping (the range spans two), known whole or not.
  EXPECT_EQ(range_verdict(anon, 0x10000, 0x31000, true, P), ReceiveCopy::part_of_mapping);
  EXPECT_EQ(range_verdict(anon, 0x0f000, 0x20000, true, P), ReceiveCopy::part_of_mapping);
  for (const Mapping& m : {Mapping{0x10000, 0x30000, true, false, false, P},
                           Mapping{0x10000, 0x30000, false, true, false, P},
                           Mapping{0x10000, 0x30000, false, false, true, P},
                           Mapping{0x10000, 0x30000, false, false, false, 2 << 20}}) {
    EXPECT_EQ(range_verdict(m, 0x10000, 0x30000, true, P), ReceiveCopy::not_anonymous);
  }
}

TEST(RangeSet, SubtractsShrinkingAndSplitting) {
  ovx_range entries[4] = {};
  ovx_range_set set{entries, 4, 0, 0};
  ovx_ranges_add(&set, 0x10000, 0x20000);
  ovx_ranges_subtract(&set, 0x14000, 0x16000);  // a hole: two pieces
  EXPECT_TRUE(ovx_ranges_has(&set, 0x10000, 0x14000));
  EXPECT_TRUE(ovx_ranges_has(&set, 0x16000, 0x20000));
  EXPECT_FALSE(ovx_ranges_overlap(&set, 0x14000, 0x16000));
  ovx_ranges_subtract(&set, 0x0, 0x12000);  // the head of the first piece
  EXPECT_TRUE(ovx_ranges_has(&set, 0x12000, 0x14000));
  ovx_ranges_subtract(&set, 0x1f000, 0x30000);  // the tail of the second
  EXPECT_TRUE(ovx_ranges_has(&set, 0x16000, 0x1f000));
  ovx_ranges_subtract(&set, 0x0, 0x40000);  // all
  EXPECT_FALSE(ovx_ranges_overlap(&set, 0x0, 0x40000));
}

TEST(RangeSet, AddsForgetsAndReusesEntries) {
  ovx_range entries[3] = {};
  ovx_range_set set{entries, 3, 0, 0};
  ovx_ranges_add(&set, 0x1000, 0x3000);
  ovx_ranges_add(&set, 0x8000, 0x9000);
  EXPECT_TRUE(ovx_ranges_overlap(&set, 0x2fff, 0x4000));
  EXPECT_FALSE(ovx_ranges_overlap(&set, 0x3000, 0x8000));  // between them
  EXPECT_TRUE(ovx_ranges_has(&set, 0x1000, 0x3000));
  EXPECT_FALSE(ovx_ranges_has(&set, 0x1000, 0x2000));  // only exact ranges
  // Forgetting what overlaps takes a range only partly covered too.
  ovx_ranges_forget_overlapping(&set, 0x2000, 0x2001);
  EXPECT_FALSE(ovx_ranges_overlap(&set, 0x0, 0x4000));
  // The freed entry is reused: two more fit in three entries, a third overflows.
  ovx_ranges_add(&set, 0x5000, 0x6000);
  ovx_ranges_add(&set, 0xa000, 0xb000);
  EXPECT_FALSE(set.overflowed);
  EXPECT_TRUE(ovx_ranges_has(&set, 0x5000, 0x6000) && ovx_ranges_has(&set, 0xa000, 0xb000));
  ovx_ranges_add(&set, 0xc000, 0xd000);
  EXPECT_TRUE(set.overflowed);
  EXPECT_FALSE(ovx_ranges_has(&set, 0xc000, 0xd000));
  EXPECT_EQ(set.used, 3);  // the count stops at the capacity
  ovx_ranges_add(&set, 0xe000, 0xf000);
  EXPECT_EQ(set.used, 3);
  // Forgetting what overlaps takes entries only partly inside too.
  ovx_ranges_forget_overlapping(&set, 0x5800, 0xa001);
  EXPECT_FALSE(ovx_ranges_overlap(&set, 0x0, 0x10000));
}

TEST(MoveRules, LibrariesWithRegistrationsNobodyTellsRuleMovingOut) {
  EXPECT_EQ(unsafe_library("/usr/lib/x86_64-linux-gnu/libfabric.so.1", false), "libfabric.so");
  EXPECT_EQ(unsafe_library("/opt/cuda/lib64/libcudart.so.12", false), "libcudart.so");
  EXPECT_EQ(unsafe_library("liburing.so.2", false), "liburing.so");
  // Verbs only where an RDMA device is there to register with.
  EXPECT_EQ(unsafe_library("/usr/lib/libibverbs.so.1.14", false), "");
  EXPECT_EQ(unsafe_library("/usr/lib/libibverbs.so.1.14", true), "libibverbs.so");
  // UCX and Open MPI are told; others are harmless; a name merely containing one is not it.
  for (const char* ok : {"/usr/lib/libucm.so.0", "/usr/lib/libopen-pal.so.40", "libc.so.6",
                         "/usr/lib/x86_64-linux-gnu/libmpich.so.12", "/opt/my-libfabric.so"}) {
    EXPECT_EQ(unsafe_library(ok, true), "") << ok;
  }
}

TEST(Settings, ParsesAndRefusesWithOneLine) {
  const Settings s = settings_from({{"OVERLAP_PROGRESS", "caller"},
                                    {"OVERLAP_INTERCEPT_MIN_SIZE", "1MiB"},
                                    {"OVERLAP_INTERCEPT_DEFER", "recv,send"},
                                    {"OVERLAP_INTERCEPT_REPORT", "/tmp/r.json"}});
  EXPECT_EQ(s.policy, Policy::caller);
  EXPECT_EQ(s.min_bytes, 1 << 20);
  EXPECT_TRUE(s.families.send && s.families.recv && !s.families.rsend && !s.families.sendrecv);
  EXPECT_EQ(settings_from(environment_of(s)).min_bytes, s.min_bytes);
  EXPECT_EQ(families_text(settings_from(environment_of(s)).families), "send,recv");
  EXPECT_EQ(parse_min_size("0", "x"), 0);
  EXPECT_EQ(parse_min_size("65536", "x"), 65536);
  EXPECT_EQ(families_text(parse_families("none", "x")), "none");
  EXPECT_EQ(families_text(parse_families("all", "x")), "send,rsend,recv,sendrecv,collectives");
  const Families coll = parse_families("collectives", "x");
  EXPECT_TRUE(coll.collectives && !coll.send && !coll.recv);
  EXPECT_FALSE(s.families.collectives);  // not in "recv,send"
  EXPECT_TRUE(s.partitioned_overlap);    // routed by default
  const Settings mpi = settings_from({{"OVERLAP_INTERCEPT_PARTITIONED", "mpi"}});
  EXPECT_FALSE(mpi.partitioned_overlap);
  EXPECT_FALSE(settings_from(environment_of(mpi)).partitioned_overlap);
  EXPECT_TRUE(s.move_pages);  // moved where safe by default
  const Settings copy = settings_from({{"OVERLAP_INTERCEPT_PLACE", "copy"}});
  EXPECT_FALSE(copy.move_pages);
  EXPECT_FALSE(settings_from(environment_of(copy)).move_pages);
  for (auto [name, value] :
       std::vector<std::pair<std::string, std::string>>{{"OVERLAP_PROGRESS", "fast"},
                                                        {"OVERLAP_INTERCEPT_MIN_SIZE", "-1"},
                                                        {"OVERLAP_INTERCEPT_MIN_SIZE", "1.5B"},
                                                        {"OVERLAP_INTERCEPT_DEFER", "send,isend"},
                                                        {"OVERLAP_INTERCEPT", "yes"},
                                                        {"OVERLAP_INTERCEPT_PARTITIONED", "on"},
                                                        {"OVERLAP_INTERCEPT_PLACE", "remap"},
                                                        {"OVERLAP_INTERCEPT_REPORT", ""}}) {
    try {
      settings_from({{name, value}});
      ADD_FAILURE() << name << "=" << value << " accepted";
    } catch (const UsageError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(name), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos);
    }
  }
}

TEST(LaunchPlan, EachLauncherForwardsTheSettings) {
  const std::map<std::string, std::string> env{{"LD_PRELOAD", "/p/lib/shim.so"},
                                               {"OVERLAP_X", "1"}};
  EXPECT_EQ(launcher_kind("/usr/bin/mpiexec.openmpi", "mpich"), LauncherKind::open_mpi);
  EXPECT_EQ(launcher_kind("mpiexec.hydra", "openmpi"), LauncherKind::hydra);
  EXPECT_EQ(launcher_kind("mpirun", "mpich"), LauncherKind::hydra);
  EXPECT_EQ(launcher_kind("mpirun", "openmpi"), LauncherKind::open_mpi);
  EXPECT_EQ(launcher_kind("srun", "openmpi"), LauncherKind::srun);
  EXPECT_EQ(launcher_kind("./app", "openmpi"), LauncherKind::none);
  LaunchPlan p = plan_launch({"mpiexec", "-n", "4", "./app"}, LauncherKind::open_mpi, env);
  EXPECT_EQ(p.argv, (std::vector<std::string>{"mpiexec", "-x", "LD_PRELOAD=/p/lib/shim.so", "-x",
                                              "OVERLAP_X=1", "-n", "4", "./app"}));
  EXPECT_TRUE(p.set_env.empty());  // the launcher itself runs without the preload
  p = plan_launch({"mpiexec.mpich", "-n", "2", "./app"}, LauncherKind::hydra, env);
  EXPECT_EQ(p.argv,
            (std::vector<std::string>{"mpiexec.mpich", "-genv", "LD_PRELOAD", "/p/lib/shim.so",
                                      "-genv", "OVERLAP_X", "1", "-n", "2", "./app"}));
  p = plan_launch({"./app", "a"}, LauncherKind::none, env);
  EXPECT_EQ(p.argv, (std::vector<std::string>{"./app", "a"}));
  EXPECT_EQ(p.set_env, env);
  EXPECT_EQ(merged_preload("", "/s.so"), "/s.so");
  EXPECT_EQ(merged_preload("/asan.so /x.so:/s.so", "/s.so"), "/asan.so:/x.so:/s.so");
}

TEST(RunReport, SummaryNamesTheTouchLine) {
  const auto doc = nlohmann::json::parse(R"({
    "metadata": {"processes": 2, "progress": "shared", "min_size_bytes": 65536},
    "ranks": [{"rank": 0, "partitioned_routed": 3, "call_sites": [{
      "call": "MPI_Recv", "site": {"text": "solver.c:212"}, "calls": 10, "deferred": 9,
      "touched_before_completion": 4, "faults": 4, "stall_s": 0.001, "completed": 9,
      "window_s": {"mean": 0.002}, "not_deferred": {"below_threshold": 1},
      "first_touches": [{"site": {"text": "solver.c:215"}, "count": 4, "mean_delay_s": 3e-6}]}]}]})");
  const std::string text = summary_text(doc, "r.json");
  EXPECT_NE(
      text.find("rank 0: recv buffer of solver.c:212 touched 3.0 us after return at solver.c:215"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("not deferred 1x: below_threshold"), std::string::npos) << text;
  EXPECT_NE(text.find("partitioned: 3 requests (all ranks) routed"), std::string::npos) << text;
}

}  // namespace
}  // namespace overlap::intercept
