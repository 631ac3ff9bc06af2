// What a benchmark's result file is made of, in one value per benchmark: its name, its
// schema version, and the schemas of its configuration and of its points, plus which
// point fields the console table shows. output/ writes and reads every kind through this,
// overlap-bench's table of subcommands names it, and docs/result-format.md is generated
// from it (overlap-bench schema).
#pragma once

#include <string_view>
#include <vector>

#include "base/record_schema.hpp"

namespace overlap::bench {

struct ConsoleColumn {
  std::string_view field;   // a flat field of the point
  std::string_view header;  // short
  int width = 10;
};

template <class C, class P>
struct ResultKind {
  using Config = C;
  using Point = P;
  std::string_view benchmark;
  int schema_version = 1;
  const Schema<C>& (*config)();
  const Schema<P>& (*point)();
  // The console table: the first `console_keys` columns say which point a row is and are
  // printed for invalid points too (followed by the reason).
  std::vector<ConsoleColumn> console;
  int console_keys = 1;
  std::string_view summary;  // one line for docs: what a point is
  // A list section of the point printed as indented rows under it (sync, impact: per rank).
  std::string_view console_detail = {};
  std::vector<ConsoleColumn> detail_columns = {};
};

}  // namespace overlap::bench
