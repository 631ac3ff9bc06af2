#include "base/record_schema.hpp"

namespace overlap {
namespace {

std::string type_text(const FieldDoc& f) {
  std::string t(to_string(f.kind));
  if (f.unit != Unit::none) t += ", " + std::string(to_string(f.unit));
  if (f.nullable) t += " or null";
  return t;
}

std::string meaning_text(const FieldDoc& f) {
  std::string m = f.doc;
  if (!f.allowed.empty()) {
    m += m.empty() ? "" : "; ";
    m += "one of ";
    for (std::size_t i = 0; i < f.allowed.size(); ++i) {
      m += (i ? ", `" : "`") + f.allowed[i] + "`";
    }
  }
  // A pipe would end the Markdown cell.
  std::string out;
  for (char c : m) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

void rows(const std::vector<FieldDoc>& fields, const std::string& prefix, std::string& out) {
  for (const FieldDoc& f : fields) {
    const std::string key = prefix + f.name + (f.kind == FieldKind::sections ? "[]" : "");
    out += "| `" + key + "` | " + type_text(f) + " | " + meaning_text(f) + " |\n";
    if (!f.fields.empty()) rows(f.fields, key + ".", out);
  }
}

}  // namespace

std::string_view to_string(FieldKind kind) {
  switch (kind) {
    case FieldKind::number:
      return "number";
    case FieldKind::integer:
      return "integer";
    case FieldKind::boolean:
      return "boolean";
    case FieldKind::text:
      return "text";
    case FieldKind::name:
      return "name";
    case FieldKind::numbers:
      return "numbers";
    case FieldKind::names:
      return "names";
    case FieldKind::section:
      return "section";
    case FieldKind::sections:
      return "sections";
    case FieldKind::mapping:
      return "mapping";
  }
  return "?";
}

std::string_view to_string(Unit unit) {
  switch (unit) {
    case Unit::none:
      return "";
    case Unit::seconds:
      return "s";
    case Unit::bytes:
      return "bytes";
    case Unit::ratio:
      return "ratio";
    case Unit::percent:
      return "%";
    case Unit::count:
      return "count";
  }
  return "";
}

nlohmann::json describe(const std::vector<FieldDoc>& fields) {
  nlohmann::json out = nlohmann::json::array();
  for (const FieldDoc& f : fields) {
    nlohmann::json d = {{"name", f.name},
                        {"kind", std::string(to_string(f.kind))},
                        {"unit", std::string(to_string(f.unit))},
                        {"nullable", f.nullable},
                        {"doc", f.doc}};
    if (!f.allowed.empty()) d["allowed"] = f.allowed;
    if (!f.fields.empty()) d["fields"] = describe(f.fields);
    out.push_back(d);
  }
  return out;
}

std::string markdown_table(const std::vector<FieldDoc>& fields) {
  std::string out = "| key | type | meaning |\n| --- | --- | --- |\n";
  rows(fields, "", out);
  return out;
}

}  // namespace overlap
