// A benchmark's command-line options as data: name, default (written once, here), help,
// and which configuration field each one sets. overlap-bench registers them with its
// parser, a benchmark reads what was typed through OptionValues, and --resume compares the
// options a user repeats against the file's configuration field by field. No parser
// library here: apps/ does the registering.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace overlap {

struct OptionSpec {
  std::string name;          // "--comm-times"
  std::string default_text;  // as a user would type it; "" = none (the option is optional)
  std::string help;          // one line, without the default (added when printed)
  std::string config_field;  // the config field it sets, "" for run options
};

// What was typed, over the specs that define the defaults.
class OptionValues {
 public:
  OptionValues(std::vector<OptionSpec> specs, std::map<std::string, std::string> given);

  // The typed text, else the default. Throws std::logic_error for an unknown option.
  std::string text(const std::string& name) const;
  bool given(const std::string& name) const { return given_.contains(name); }
  std::optional<std::string> typed(const std::string& name) const;
  const std::vector<OptionSpec>& specs() const { return specs_; }

 private:
  const OptionSpec& spec(const std::string& name) const;
  std::vector<OptionSpec> specs_;
  std::map<std::string, std::string> given_;
};

// Like parse_count, but 0 is allowed too (e.g. --warmup 0).
int parse_count_or_zero(const std::string& text, const std::string& what, int max);

}  // namespace overlap
