#include "progress/progress_policy.hpp"

#include <charconv>
#include <cstdlib>

namespace overlap::progress {

std::optional<ProgressPolicy> parse_policy(std::string_view name) {
  if (name == "caller") return ProgressPolicy::caller;
  if (name == "shared") return ProgressPolicy::shared;
  if (name == "dedicated") return ProgressPolicy::dedicated;
  return std::nullopt;
}

const char* policy_name(ProgressPolicy policy) {
  switch (policy) {
    case ProgressPolicy::caller:
      return "caller";
    case ProgressPolicy::shared:
      return "shared";
    case ProgressPolicy::dedicated:
      return "dedicated";
  }
  return "?";
}

bool needs_thread(const EngineConfig& config) {
  return config.policy != ProgressPolicy::caller || config.rescue;
}

namespace {

// Reads an integer variable in min..max; returns false (and sets error) when malformed.
bool read_int(const char* name, long min, long max, long& out, std::string& error) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return true;
  const std::string_view s(text);
  long v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || v < min || v > max) {
    error = std::string(name) + "='" + text + "' is not an integer in " + std::to_string(min) +
            ".." + std::to_string(max);
    return false;
  }
  out = v;
  return true;
}

}  // namespace

ConfigResult config_from_environment(std::optional<ProgressPolicy> requested) {
  ConfigResult r;
  const char* env = std::getenv("OVERLAP_PROGRESS");
  if (requested) {
    r.config.policy = *requested;
    r.config.reason = "asked for by the program";
  } else if (env == nullptr || *env == '\0' || std::string_view(env) == "auto") {
    r.config.automatic = true;
  } else {
    auto p = parse_policy(env);
    if (!p) {
      r.error = std::string("OVERLAP_PROGRESS='") + env +
                "' is not one of: auto, caller, shared, dedicated";
      return r;
    }
    r.config.policy = *p;
    r.config.reason = std::string("OVERLAP_PROGRESS=") + env;
  }
  long core = -1, min_us = r.config.backoff.min_sleep.count(),
       max_us = r.config.backoff.max_sleep.count(), rescue_ms = r.config.rescue_after.count();
  if (!read_int("OVERLAP_PROGRESS_CORE", 0, 1L << 20, core, r.error)) return r;
  if (!read_int("OVERLAP_CALLER_RESCUE_MS", 1, 60000, rescue_ms, r.error)) return r;
  if (!read_int("OVERLAP_SHARED_MIN_SLEEP_US", 0, 1000000, min_us, r.error)) return r;
  if (!read_int("OVERLAP_SHARED_MAX_SLEEP_US", 0, 1000000, max_us, r.error)) return r;
  long slack_ns = r.config.backoff.timer_slack.count();
  if (!read_int("OVERLAP_SHARED_TIMER_SLACK_NS", 0, 1000000000, slack_ns, r.error)) return r;
  r.config.backoff.timer_slack = std::chrono::nanoseconds{slack_ns};
  long wake = r.config.backoff.wake_on_submit ? 1 : 0;
  if (!read_int("OVERLAP_SHARED_WAKE_ON_SUBMIT", 0, 1, wake, r.error)) return r;
  r.config.backoff.wake_on_submit = wake == 1;
  long stand_down = r.config.backoff.stand_down ? 1 : 0;
  if (!read_int("OVERLAP_SHARED_STAND_DOWN", 0, 1, stand_down, r.error)) return r;
  r.config.backoff.stand_down = stand_down == 1;
  long per_step = r.config.backoff.pauses_per_step;
  if (!read_int("OVERLAP_SHARED_PAUSES_PER_STEP", 0, 1024, per_step, r.error)) return r;
  r.config.backoff.pauses_per_step = static_cast<int>(per_step);
  if (max_us < min_us) {
    r.error = "OVERLAP_SHARED_MAX_SLEEP_US=" + std::to_string(max_us) +
              " is below OVERLAP_SHARED_MIN_SLEEP_US=" + std::to_string(min_us);
    return r;
  }
  r.config.core_index = static_cast<int>(core);
  r.config.backoff.min_sleep = std::chrono::microseconds{min_us};
  r.config.backoff.max_sleep = std::chrono::microseconds{max_us};
  r.config.rescue_after = std::chrono::milliseconds{rescue_ms};
  return r;
}

}  // namespace overlap::progress
