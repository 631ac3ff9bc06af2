// The human view of any benchmark: a table printed row by row as points finish, the
// columns named by the benchmark's ResultKind, each value formatted by its unit (µs/ms/s,
// KiB/MiB, ratios, percentages). Invalid points print their key columns and the reason,
// never numbers.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

#include "base/record_schema.hpp"
#include "bench/common/result_kind.hpp"

namespace overlap::output {

struct ConsoleTable {
  std::vector<bench::ConsoleColumn> columns;
  int keys = 1;
  std::vector<FieldDoc> fields;  // the point schema, for units
  std::string detail;            // a list section printed under each point
  std::vector<bench::ConsoleColumn> detail_columns;
};

template <class C, class P>
ConsoleTable console_table(const bench::ResultKind<C, P>& kind) {
  return {kind.console, kind.console_keys, kind.point().docs(), std::string(kind.console_detail),
          kind.detail_columns};
}

void print_header(std::ostream& out, const ConsoleTable& table);
// `point`: the point as its schema writes it.
void print_row(std::ostream& out, const ConsoleTable& table, const nlohmann::json& point);

// One value as a human reads it ("-" for null).
std::string format_value(const nlohmann::json& value, Unit unit);

}  // namespace overlap::output
