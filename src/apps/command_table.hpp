// overlap-bench's subcommands, one entry each, in the order --help lists them. Adding a
// benchmark adds one line here (docs/adding-a-benchmark.md).
#pragma once

#include <vector>

#include "apps/command.hpp"

namespace overlap::apps {

const std::vector<CommandEntry>& command_table();

}  // namespace overlap::apps
