#include "apps/output_path.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "base/usage_error.hpp"

namespace overlap::apps {

void check_output_path(const std::string& path, const char* option) {
  if (path.empty()) return;
  const auto parent = std::filesystem::absolute(path).parent_path();
  if (!std::filesystem::is_directory(parent)) {
    throw UsageError(fmt::format("{}: '{}' is not allowed; its directory '{}' does not exist",
                                 option, path, parent.string()));
  }
}

}  // namespace overlap::apps
