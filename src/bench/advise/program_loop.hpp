// `overlap-bench advise --from FILE`: the program's loop read from its own run under
// overlap-run (`overlap-run --report FILE`): which nonblocking collective, how large its
// message, how long the program computes between starting it and waiting for it.
//
// The report has, per rank and call site of the program's nonblocking collectives, the
// calls MPI accepted, their bytes (nbc's meaning: a broadcast's or reduction's vector, one
// rank's block of the others) and `wait_window_s`, the time from each call's return to the
// start of the call that completed its request. The site taken is the one whose requests
// spent the most time between call and wait over all ranks (the phase with the most to
// overlap); its message is the mean bytes per call, its computation the median over ranks
// of each rank's median window. Pure; unit-tested (tests/bench/program_loop_test.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bench/common/collective.hpp"

namespace overlap::bench {

struct ProgramLoop {
  Collective op = Collective::allreduce;
  std::optional<long> msg_bytes;  // none for ibarrier
  double comp_s = 0;
  std::string site;         // "MPI_Iallreduce at loop.c:95"
  std::uint64_t waits = 0;  // requests completed at that site, all ranks
  int ranks = 0;            // ranks with a completed request there
  std::string summary;      // one line: where it comes from and what it gives
};

// `text` is the file's contents, `path` its name (for messages); `op`: only that
// collective's sites (the user's --op). Throws UsageError naming the file and what it
// lacks.
ProgramLoop program_loop_from_report(std::string_view text, const std::string& path,
                                     std::optional<Collective> op);

// Reads `path` (UsageError when it cannot be read) and calls the above.
ProgramLoop read_program_loop(const std::string& path, std::optional<Collective> op);

}  // namespace overlap::bench
