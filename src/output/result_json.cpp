#include "output/result_json.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "base/usage_error.hpp"

namespace overlap::output {

void write_text_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out) throw std::runtime_error("cannot write '" + tmp + "'");
    out << text;
    if (!out.flush()) throw std::runtime_error("cannot write '" + tmp + "'");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    throw std::runtime_error("cannot rename '" + tmp + "' to '" + path + "'");
  }
}

void write_json_file(const std::string& path, const nlohmann::json& doc) {
  write_text_file(path, doc.dump(2) + "\n");
}

nlohmann::json read_result_file(const std::string& path, const std::string& benchmark,
                                int schema_version) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw UsageError("'" + path + "' is not a readable file");
  }
  std::ifstream in(path);
  if (!in) throw UsageError("cannot read '" + path + "'");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const std::exception&) {
    throw UsageError("'" + path + "' is not a JSON result file");
  }
  if (!doc.is_object() || doc.value("benchmark", "") != benchmark) {
    throw UsageError("'" + path + "' is not an overlap-bench " + benchmark + " result");
  }
  if (doc.value("schema_version", -1) != schema_version) {
    throw UsageError("'" + path + "' has schema_version " +
                     doc.value("schema_version", nlohmann::json()).dump() +
                     "; this overlap-bench reads " + std::to_string(schema_version));
  }
  return doc;
}

}  // namespace overlap::output
