#include "output/console_table.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "base/duration.hpp"

namespace overlap::output {
namespace {

std::string bytes(double b) {
  if (b >= 1024.0 * 1024 * 1024) return fmt::format("{:.3g} GiB", b / (1024.0 * 1024 * 1024));
  if (b >= 1024.0 * 1024) return fmt::format("{:.3g} MiB", b / (1024.0 * 1024));
  if (b >= 1024) return fmt::format("{:.3g} KiB", b / 1024.0);
  return fmt::format("{} B", static_cast<long>(b));
}

const FieldDoc* find(const std::vector<FieldDoc>& fields, std::string_view name) {
  for (const FieldDoc& f : fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string cell(const nlohmann::json& j, const std::vector<FieldDoc>& fields,
                 const bench::ConsoleColumn& c) {
  const FieldDoc* f = find(fields, c.field);
  const nlohmann::json& v = j.contains(c.field) ? j.at(std::string(c.field)) : nlohmann::json();
  return format_value(v, f ? f->unit : Unit::none);
}

void print_cells(std::ostream& out, const std::vector<bench::ConsoleColumn>& columns,
                 const std::vector<std::string>& cells, std::size_t count, const char* indent) {
  std::string line = indent;
  for (std::size_t i = 0; i < count; ++i) {
    const auto& c = columns[i];
    const bool left = i == 0 || c.width == 0;
    line += i ? " " : "";
    line += c.width == 0 ? cells[i]
            : left       ? fmt::format("{:<{}}", cells[i], c.width)
                         : fmt::format("{:>{}}", cells[i], c.width);
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  out << line << '\n';
}

}  // namespace

std::string format_value(const nlohmann::json& v, Unit unit) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (!v.is_number()) return v.dump();
  const double x = v.get<double>();
  switch (unit) {
    case Unit::seconds:
      return format_duration(x);
    case Unit::bytes:
      return bytes(x);
    case Unit::ratio:
      return fmt::format("{:.2f}", x);
    case Unit::percent:
      return fmt::format("{:.0f}%", x);
    case Unit::count:
    case Unit::none:
      return v.is_number_integer() ? v.dump() : fmt::format("{:.4g}", x);
  }
  return v.dump();
}

void print_header(std::ostream& out, const ConsoleTable& t) {
  std::vector<std::string> names;
  for (const auto& c : t.columns) names.emplace_back(c.header);
  print_cells(out, t.columns, names, names.size(), "");
  if (t.detail_columns.empty()) return;
  std::vector<std::string> sub;
  for (const auto& c : t.detail_columns) sub.emplace_back(c.header);
  print_cells(out, t.detail_columns, sub, sub.size(), "    ");
}

void print_row(std::ostream& out, const ConsoleTable& t, const nlohmann::json& point) {
  std::vector<std::string> cells;
  for (const auto& c : t.columns) cells.push_back(cell(point, t.fields, c));
  const bool valid = !point.contains("valid") || point.at("valid").get<bool>();
  if (!valid) {
    std::vector<std::string> keys(cells.begin(), cells.begin() + t.keys);
    std::vector<bench::ConsoleColumn> cols(t.columns.begin(), t.columns.begin() + t.keys);
    cols.push_back({"invalid_reason", "", 0});
    keys.push_back("invalid: " + point.value("invalid_reason", std::string("no reason given")));
    print_cells(out, cols, keys, keys.size(), "");
    return;
  }
  print_cells(out, t.columns, cells, cells.size(), "");
  if (t.detail.empty() || !point.contains(t.detail)) return;
  const FieldDoc* section = find(t.fields, t.detail);
  for (const auto& element : point.at(t.detail)) {
    std::vector<std::string> sub;
    for (const auto& c : t.detail_columns) {
      sub.push_back(cell(element, section ? section->fields : std::vector<FieldDoc>{}, c));
    }
    print_cells(out, t.detail_columns, sub, sub.size(), "    ");
  }
}

}  // namespace overlap::output
