// `overlap-bench schema`: the result-file fields of every benchmark, from the records'
// own schemas, as the Markdown tables of docs/result-format.md (a test checks the docs
// against it) or as JSON. Needs no MPI.
#pragma once

#include "apps/command.hpp"

namespace overlap::apps {

CommandEntry schema_entry();

}  // namespace overlap::apps
