// Which progress strategy the engine runs, chosen through the API or the environment
// (OVERLAP_PROGRESS, OVERLAP_PROGRESS_CORE, OVERLAP_SHARED_MIN_SLEEP_US,
// OVERLAP_SHARED_MAX_SLEEP_US, OVERLAP_SHARED_TIMER_SLACK_NS,
// OVERLAP_SHARED_WAKE_ON_SUBMIT, OVERLAP_SHARED_STAND_DOWN, OVERLAP_SHARED_PAUSES_PER_STEP,
// OVERLAP_CALLER_RESCUE_MS).
// Parsing only; nothing here starts a thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "progress/backoff.hpp"

namespace overlap::progress {

enum class ProgressPolicy { caller, shared, dedicated };

std::optional<ProgressPolicy> parse_policy(std::string_view name);
const char* policy_name(ProgressPolicy policy);

struct EngineConfig {
  ProgressPolicy policy = ProgressPolicy::shared;
  // Nothing chose a policy (OVERLAP_PROGRESS unset or `auto`): the runtime resolves it
  // (auto_policy.hpp) and says why in `reason`.
  bool automatic = false;
  std::string reason;   // why `policy`: who asked, or what auto saw
  int core_index = -1;  // dedicated: index in the process's cores; -1 = the last one
  // dedicated: also take the core away from the thread that starts the engine, so the
  // threads it creates later (the computation) cannot run there.
  bool exclusive_core = true;
  BackoffConfig backoff;
  // caller: run a rescue thread (for MPI libraries that call liboverlap only from tests
  // of its own requests): when nobody made a pass for this long while work is in flight,
  // it makes passes until someone else does again. Set by the runtime, not by the user.
  bool rescue = false;
  std::chrono::milliseconds rescue_after{100};
};

// Whether the configuration runs a thread of ours that calls MPI.
bool needs_thread(const EngineConfig& config);

// `requested` empty means "take OVERLAP_PROGRESS, else auto" (`automatic`). Other settings always
// come from the environment. On a bad value, `error` names it and what is allowed.
struct ConfigResult {
  EngineConfig config;
  std::string error;
};
ConfigResult config_from_environment(std::optional<ProgressPolicy> requested);

}  // namespace overlap::progress
