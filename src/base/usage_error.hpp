// The one error type for bad user input. Its message is a single line that names the
// offending value and says what is allowed; apps print it and exit with code 2.
#pragma once

#include <stdexcept>
#include <string>

namespace overlap {

class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace overlap
