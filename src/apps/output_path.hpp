// Where a result file will go, checked before MPI starts: a run must not measure for
// minutes and then fail to write.
#pragma once

#include <string>

namespace overlap::apps {

// Throws UsageError naming `option` and `path` when the file's directory does not exist.
// An empty path (no file asked for) is fine.
void check_output_path(const std::string& path, const char* option);

}  // namespace overlap::apps
