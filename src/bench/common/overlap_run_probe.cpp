#include "bench/common/overlap_run_probe.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <string_view>

namespace overlap::bench {
namespace {

template <class F>
F exported(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

}  // namespace

const Schema<OverlapRunSettings>& overlap_run_settings_schema() {
  using S = OverlapRunSettings;
  static const Schema<S> s =
      Schema<S>()
          .add("progress", &S::progress, Unit::none,
               "progress policy in effect: caller, shared or dedicated (after any fallback)")
          .add("min_size_bytes", &S::min_size_bytes, Unit::bytes,
               "--min-size: smaller messages run as the plain blocking call")
          .add("defer", &S::defer, Unit::none,
               "--defer: call families deferred, e.g. send,rsend,recv,sendrecv or none");
  return s;
}

bool overlap_run_preloaded() {
  const char* mode = std::getenv("OVERLAP_INTERCEPT");
  const bool off = mode != nullptr && std::string_view(mode) == "off";
  return !off && exported<int (*)()>("overlap_intercept_active") != nullptr;
}

std::optional<OverlapRunSettings> overlap_run_settings() {
  const auto active = exported<int (*)()>("overlap_intercept_active");
  if (active == nullptr || active() == 0) return std::nullopt;
  const auto min_size = exported<long (*)()>("overlap_intercept_min_size");
  const auto policy = exported<const char* (*)()>("overlap_intercept_policy");
  const auto defer = exported<const char* (*)()>("overlap_intercept_defer");
  OverlapRunSettings s;
  // A shim without these queries (none is installed without them) still counts as
  // intercepted; what it cannot say stays unknown.
  s.min_size_bytes = min_size != nullptr ? min_size() : -1;
  const char* p = policy != nullptr ? policy() : nullptr;
  s.progress = p != nullptr ? p : "unknown";
  const char* d = defer != nullptr ? defer() : nullptr;
  s.defer = d != nullptr ? d : "unknown";
  return s;
}

long overlap_run_deferred_calls() {
  static const auto deferred = exported<long (*)()>("overlap_intercept_deferred");
  return deferred != nullptr ? deferred() : 0;
}

}  // namespace overlap::bench
