// What overlap-run and the interception core agree on: the settings, their option and
// environment names, and one parser for both (the launcher validates before anything
// starts; the core reads the same variables in each rank, so a preload set up by hand is
// checked the same way). Bad values throw UsageError with one line naming the value.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace overlap::intercept {

// automatic (`auto`): resolved inside MPI_Init by liboverlap's rule (OVX_Progress_choose).
enum class Policy { caller, shared, dedicated, automatic };

// Call families that may be deferred (each can be switched off).
struct Families {
  bool send = true;      // MPI_Send
  bool rsend = true;     // MPI_Rsend
  bool recv = true;      // MPI_Recv
  bool sendrecv = true;  // MPI_Sendrecv, MPI_Sendrecv_replace
  // The blocking collectives liboverlap has (MPI_Bcast, _Reduce, _Allreduce,
  // _Reduce_scatter_block, _Gather, _Scatter, _Allgather, _Alltoall): routed to its task
  // graphs and deferred (calls/collective_deferral.hpp); off: MPI's own, as written.
  bool collectives = true;
};

struct Settings {
  bool enabled = true;           // OVERLAP_INTERCEPT=on|off
  std::optional<Policy> policy;  // OVERLAP_PROGRESS; empty: auto
  long min_bytes = 64 * 1024;    // OVERLAP_INTERCEPT_MIN_SIZE
  Families families;             // OVERLAP_INTERCEPT_DEFER
  std::string report;            // OVERLAP_INTERCEPT_REPORT (JSON path), "" none
  // OVERLAP_INTERCEPT_PARTITIONED=overlap|mpi: a program's own MPI_Psend_init family goes
  // to liboverlap's partitioned layer (where MPI has that API), or stays MPI's.
  bool partitioned_overlap = true;
  // OVERLAP_INTERCEPT_COLLECTIVES=overlap|mpi: a program's own nonblocking collectives
  // (the nine liboverlap has) go to liboverlap's task graphs, or stay MPI's.
  bool collectives_overlap = true;
  // OVERLAP_INTERCEPT_PLACE=move|copy: a received message's whole pages are moved into
  // the program's buffer (mremap) where move_gate.hpp finds that safe, else copied; or it
  // is always copied (docs/overlap-run.md, "Placing received data").
  bool move_pages = true;
};

inline constexpr std::string_view kEnvEnabled = "OVERLAP_INTERCEPT";
inline constexpr std::string_view kEnvPolicy = "OVERLAP_PROGRESS";
inline constexpr std::string_view kEnvMinSize = "OVERLAP_INTERCEPT_MIN_SIZE";
inline constexpr std::string_view kEnvDefer = "OVERLAP_INTERCEPT_DEFER";
inline constexpr std::string_view kEnvReport = "OVERLAP_INTERCEPT_REPORT";
inline constexpr std::string_view kEnvPartitioned = "OVERLAP_INTERCEPT_PARTITIONED";
inline constexpr std::string_view kEnvCollectives = "OVERLAP_INTERCEPT_COLLECTIVES";
inline constexpr std::string_view kEnvPlace = "OVERLAP_INTERCEPT_PLACE";

Policy parse_policy(std::string_view text, std::string_view what);
std::string_view policy_name(Policy p);
// Bytes ("65536", "0" defers every size) or a size with a unit: 64KiB, 1MiB.
long parse_min_size(std::string_view text, std::string_view what);
// "all", "none", or a comma list of send, rsend, recv, sendrecv, collectives.
Families parse_families(std::string_view text, std::string_view what);
std::string families_text(const Families& f);
bool parse_on_off(std::string_view text, std::string_view what);
// "overlap" (true) or "mpi" (false).
bool parse_partitioned(std::string_view text, std::string_view what);
// "overlap" (true) or "mpi" (false), for OVERLAP_INTERCEPT_COLLECTIVES.
bool parse_collectives(std::string_view text, std::string_view what);
// "move" (true) or "copy" (false).
bool parse_place(std::string_view text, std::string_view what);

// From environment variables (name -> value; missing names keep the defaults).
Settings settings_from(const std::map<std::string, std::string>& env);
Settings settings_from_environment();
// The variables that carry `s` to the ranks (inverse of settings_from).
std::map<std::string, std::string> environment_of(const Settings& s);

}  // namespace overlap::intercept
