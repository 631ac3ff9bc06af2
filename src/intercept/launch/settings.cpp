#include "intercept/launch/settings.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "base/usage_error.hpp"
#include "base/value_lists.hpp"

namespace overlap::intercept {

Policy parse_policy(std::string_view text, std::string_view what) {
  if (text == "caller") return Policy::caller;
  if (text == "shared") return Policy::shared;
  if (text == "dedicated") return Policy::dedicated;
  if (text == "auto") return Policy::automatic;
  throw UsageError(fmt::format(
      "{}: '{}' is not a progress policy; allowed: auto, caller, shared, dedicated", what, text));
}

std::string_view policy_name(Policy p) {
  switch (p) {
    case Policy::caller:
      return "caller";
    case Policy::shared:
      return "shared";
    case Policy::dedicated:
      return "dedicated";
    case Policy::automatic:
      return "auto";
  }
  return "?";
}

long parse_min_size(std::string_view text, std::string_view what) {
  if (!text.empty() && text.size() <= 13 &&
      text.find_first_not_of("0123456789") == std::string_view::npos) {
    return std::stol(std::string(text));  // plain bytes
  }
  const double b = parse_bytes(text, what);
  if (b != static_cast<double>(static_cast<long>(b)) || b > 1024.0 * 1024 * 1024 * 1024) {
    throw UsageError(fmt::format("{}: '{}' is not a whole number of bytes up to 1TiB", what, text));
  }
  return static_cast<long>(b);
}

Families parse_families(std::string_view text, std::string_view what) {
  if (text == "all") return Families{};
  Families f{false, false, false, false, false};
  if (text == "none") return f;
  for (const std::string& name : parse_name_list(text, what)) {
    if (name == "send") {
      f.send = true;
    } else if (name == "rsend") {
      f.rsend = true;
    } else if (name == "recv") {
      f.recv = true;
    } else if (name == "sendrecv") {
      f.sendrecv = true;
    } else if (name == "collectives") {
      f.collectives = true;
    } else {
      throw UsageError(fmt::format(
          "{}: '{}' is not a call family; allowed: all, none, or a list of send, rsend, recv, "
          "sendrecv, collectives",
          what, name));
    }
  }
  return f;
}

std::string families_text(const Families& f) {
  std::string out;
  auto add = [&out](bool on, const char* name) {
    if (!on) return;
    if (!out.empty()) out += ',';
    out += name;
  };
  add(f.send, "send");
  add(f.rsend, "rsend");
  add(f.recv, "recv");
  add(f.sendrecv, "sendrecv");
  add(f.collectives, "collectives");
  return out.empty() ? "none" : out;
}

bool parse_on_off(std::string_view text, std::string_view what) {
  if (text == "on") return true;
  if (text == "off") return false;
  throw UsageError(fmt::format("{}: '{}' is not allowed; expected on or off", what, text));
}

bool parse_partitioned(std::string_view text, std::string_view what) {
  if (text == "overlap") return true;
  if (text == "mpi") return false;
  throw UsageError(
      fmt::format("{}: '{}' is not allowed; expected overlap (liboverlap's partitioned layer) "
                  "or mpi (MPI's own)",
                  what, text));
}

bool parse_collectives(std::string_view text, std::string_view what) {
  if (text == "overlap") return true;
  if (text == "mpi") return false;
  throw UsageError(
      fmt::format("{}: '{}' is not allowed; expected overlap (liboverlap's nonblocking "
                  "collectives) or mpi (MPI's own)",
                  what, text));
}

bool parse_place(std::string_view text, std::string_view what) {
  if (text == "move") return true;
  if (text == "copy") return false;
  throw UsageError(fmt::format(
      "{}: '{}' is not allowed; expected move (whole received pages are moved into place) or "
      "copy",
      what, text));
}

Settings settings_from(const std::map<std::string, std::string>& env) {
  Settings s;
  auto get = [&env](std::string_view name) -> const std::string* {
    auto it = env.find(std::string(name));
    return it == env.end() ? nullptr : &it->second;
  };
  if (auto* v = get(kEnvEnabled)) s.enabled = parse_on_off(*v, kEnvEnabled);
  if (auto* v = get(kEnvPolicy)) s.policy = parse_policy(*v, kEnvPolicy);
  if (auto* v = get(kEnvMinSize)) s.min_bytes = parse_min_size(*v, kEnvMinSize);
  if (auto* v = get(kEnvDefer)) s.families = parse_families(*v, kEnvDefer);
  if (auto* v = get(kEnvPartitioned))
    s.partitioned_overlap = parse_partitioned(*v, kEnvPartitioned);
  if (auto* v = get(kEnvCollectives))
    s.collectives_overlap = parse_collectives(*v, kEnvCollectives);
  if (auto* v = get(kEnvPlace)) s.move_pages = parse_place(*v, kEnvPlace);
  if (auto* v = get(kEnvReport)) {
    if (v->empty()) throw UsageError(fmt::format("{}: an empty path is not allowed", kEnvReport));
    s.report = *v;
  }
  return s;
}

Settings settings_from_environment() {
  std::map<std::string, std::string> env;
  for (std::string_view name : {kEnvEnabled, kEnvPolicy, kEnvMinSize, kEnvDefer, kEnvReport,
                                kEnvPartitioned, kEnvCollectives, kEnvPlace}) {
    if (const char* v = std::getenv(std::string(name).c_str())) env[std::string(name)] = v;
  }
  return settings_from(env);
}

std::map<std::string, std::string> environment_of(const Settings& s) {
  std::map<std::string, std::string> env;
  env[std::string(kEnvEnabled)] = s.enabled ? "on" : "off";
  if (s.policy) env[std::string(kEnvPolicy)] = std::string(policy_name(*s.policy));
  env[std::string(kEnvMinSize)] = s.min_bytes == 0 ? "0" : fmt::format("{}B", s.min_bytes);
  env[std::string(kEnvDefer)] = families_text(s.families);
  if (!s.report.empty()) env[std::string(kEnvReport)] = s.report;
  env[std::string(kEnvPartitioned)] = s.partitioned_overlap ? "overlap" : "mpi";
  env[std::string(kEnvCollectives)] = s.collectives_overlap ? "overlap" : "mpi";
  env[std::string(kEnvPlace)] = s.move_pages ? "move" : "copy";
  return env;
}

}  // namespace overlap::intercept
