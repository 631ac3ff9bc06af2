// A subcommand of overlap-bench as main() drives it: validate everything before MPI_Init
// (bad input: one line, exit code 2, no MPI traffic), run what must run before MPI_Init,
// then the measurement. The table of subcommands is command_table.hpp.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/record_schema.hpp"

namespace overlap::apps {

class Command {
 public:
  virtual ~Command() = default;
  // After parsing, before MPI_Init: throws UsageError for any bad value. Touches no MPI.
  virtual void validate() = 0;
  // Before MPI_Init, after validate().
  virtual void before_mpi() {}
  // False: run() is called without MPI (overlap-bench schema).
  virtual bool uses_mpi() const { return true; }
  virtual int thread_level() const = 0;
  // Returns the process exit code.
  virtual int run(const std::string& command_line, int provided_thread_level) = 0;
};

// A benchmark's result-file description, for `overlap-bench schema`.
struct ResultDocs {
  int schema_version = 0;
  nlohmann::json schema;  // as embedded in its result files
  std::vector<FieldDoc> config, points;
};

struct CommandEntry {
  std::string name;
  std::string help;
  // Registers the subcommand's options on `sub`; the command keeps what they fill in.
  std::function<std::unique_ptr<Command>(CLI::App& sub)> make;
  // Benchmarks: what their result files hold (empty for other subcommands).
  std::function<ResultDocs()> result_docs = {};
};

}  // namespace overlap::apps
