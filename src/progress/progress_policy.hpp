// Which progress strategy the engine runs, chosen through the API or the environment
// (OVERLAP_PROGRESS, OVERLAP_PROGRESS_CORE, OVERLAP_SHARED_MIN_SLEEP_US,
// OVERLAP_SHARED_MAX_SLEEP_US). Parsing only; nothing here starts a thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "progress/backoff.hpp"

namespace overlap::progress {

enum class ProgressPolicy { caller, shared, dedicated };

std::optional<ProgressPolicy> parse_policy(std::string_view name);
const char* policy_name(ProgressPolicy policy);
bool needs_thread(ProgressPolicy policy);

struct EngineConfig {
  ProgressPolicy policy = ProgressPolicy::shared;
  int core_index = -1;  // dedicated: index in the process's cores; -1 = the last one
  // dedicated: also take the core away from the thread that starts the engine, so the
  // threads it creates later (the computation) cannot run there.
  bool exclusive_core = true;
  BackoffConfig backoff;
};

// `requested` empty means "take OVERLAP_PROGRESS, else shared". Other settings always
// come from the environment. On a bad value, `error` names it and what is allowed.
struct ConfigResult {
  EngineConfig config;
  std::string error;
};
ConfigResult config_from_environment(std::optional<ProgressPolicy> requested);

}  // namespace overlap::progress
