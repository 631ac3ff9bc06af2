#include "base/record_schema.hpp"

#include <gtest/gtest.h>

namespace overlap {
namespace {

enum class Colour { red, blue };
inline constexpr EnumNames<Colour, 2> kColours{"colour",
                                               {{{Colour::red, "red"}, {Colour::blue, "blue"}}}};

struct Quartet {
  double median = 0, p25 = 0, p75 = 0;
};

struct Inner {
  long bytes = 0;
  std::optional<double> t_s;
};

struct Outer {
  std::string name;
  int count = 0;
  bool valid = false;
  Colour colour = Colour::red;
  std::vector<Colour> palette;
  std::vector<double> times_s;
  std::optional<double> ratio;
  std::optional<Quartet> t;
  std::optional<Inner> extra;
  std::vector<Inner> list;
  std::map<std::string, std::string> null_reasons;
};

const Schema<Inner>& inner_schema() {
  static const Schema<Inner> s = Schema<Inner>()
                                     .add("bytes", &Inner::bytes, Unit::bytes, "size")
                                     .add("t_s", &Inner::t_s, Unit::seconds, "a time");
  return s;
}

const Schema<Outer>& outer_schema() {
  static const Schema<Outer> s = Schema<Outer>()
                                     .add("name", &Outer::name, Unit::none, "a name")
                                     .add("count", &Outer::count, Unit::count, "how many")
                                     .add("valid", &Outer::valid, Unit::none, "valid | not")
                                     .add("colour", &Outer::colour, kColours, "one colour")
                                     .add("palette", &Outer::palette, kColours, "colours")
                                     .add("times_s", &Outer::times_s, Unit::seconds, "times")
                                     .add("ratio", &Outer::ratio, Unit::ratio, "a ratio")
                                     .spread("t", "_s", &Outer::t, Unit::seconds, "median t")
                                     .section("extra", &Outer::extra, inner_schema(), "optional")
                                     .section("list", &Outer::list, inner_schema(), "a list")
                                     .reasons(&Outer::null_reasons);
  return s;
}

Outer sample() {
  Outer o;
  o.name = "x";
  o.count = 3;
  o.valid = true;
  o.colour = Colour::blue;
  o.palette = {Colour::blue, Colour::red};
  o.times_s = {0.5, 1.0 / 3.0};
  o.ratio = 0.25;
  o.t = Quartet{2, 1, 3};
  o.extra = Inner{7, std::nullopt};
  o.list = {Inner{1, 0.5}, Inner{2, std::nullopt}};
  o.null_reasons = {{"extra.t_s", "not measurable here"}};
  return o;
}

TEST(RecordSchema, WritesEveryFieldInOrderWithSpreadsFlattened) {
  const nlohmann::json j = outer_schema().to_json(sample());
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  // nlohmann::json sorts keys; what matters is that each is there with its value.
  EXPECT_EQ(j.at("colour"), "blue");
  EXPECT_EQ(j.at("palette"), nlohmann::json({"blue", "red"}));
  EXPECT_EQ(j.at("t_s"), 2.0);
  EXPECT_EQ(j.at("t_p25_s"), 1.0);
  EXPECT_EQ(j.at("t_p75_s"), 3.0);
  EXPECT_TRUE(j.at("extra").at("t_s").is_null());
  EXPECT_EQ(j.at("list").size(), 2u);
  EXPECT_EQ(j.at("null_reasons").at("extra.t_s"), "not measurable here");
}

TEST(RecordSchema, RoundTripsExactly) {
  const nlohmann::json j = outer_schema().to_json(sample());
  const Outer back = outer_schema().from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(outer_schema().to_json(back), j);
  EXPECT_EQ(back.times_s[1], 1.0 / 3.0);
}

TEST(RecordSchema, AbsentOptionalsAreNull) {
  Outer o;
  const nlohmann::json j = outer_schema().to_json(o);
  EXPECT_TRUE(j.at("ratio").is_null());
  EXPECT_TRUE(j.at("t_s").is_null());
  EXPECT_TRUE(j.at("t_p75_s").is_null());
  EXPECT_TRUE(j.at("extra").is_null());
  EXPECT_FALSE(j.contains("null_reasons"));
  const Outer back = outer_schema().from_json(j);
  EXPECT_FALSE(back.t);
  EXPECT_FALSE(back.extra);
}

// A section added later (missing_is_null) reads as null from records written before it;
// a section without that flag stays required.
TEST(RecordSchema, LaterSectionMissingReadsAsNull) {
  struct Later {
    int count = 0;
    std::optional<Inner> added;
  };
  const Schema<Later> s = Schema<Later>()
                              .add("count", &Later::count, Unit::count, "how many")
                              .section("added", &Later::added, inner_schema(), "new", true);
  const Later back = s.from_json(nlohmann::json{{"count", 2}});
  EXPECT_EQ(back.count, 2);
  EXPECT_FALSE(back.added);
  Later full;
  full.added = Inner{5, 0.5};
  const Later again = s.from_json(s.to_json(full));
  ASSERT_TRUE(again.added);
  EXPECT_EQ(again.added->bytes, 5);
  nlohmann::json j = outer_schema().to_json(sample());
  j.erase("extra");
  EXPECT_THROW(outer_schema().from_json(j), SchemaError);
}

TEST(RecordSchema, BadValuesNameTheField) {
  nlohmann::json j = outer_schema().to_json(sample());
  const auto message = [&](const nlohmann::json& doc) {
    try {
      outer_schema().from_json(doc);
    } catch (const SchemaError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto bad = j;
  bad["count"] = 1.5;
  EXPECT_NE(message(bad).find("'count'"), std::string::npos) << message(bad);
  bad = j;
  bad["colour"] = "green";
  EXPECT_NE(message(bad).find("red, blue"), std::string::npos) << message(bad);
  bad = j;
  bad.erase("valid");
  EXPECT_NE(message(bad).find("'valid' is missing"), std::string::npos) << message(bad);
  bad = j;
  bad["list"][1]["bytes"] = "many";
  EXPECT_NE(message(bad).find("'bytes'"), std::string::npos) << message(bad);
  bad = j;
  bad["t_p25_s"] = "soon";
  EXPECT_NE(message(bad).find("'t_p25_s'"), std::string::npos) << message(bad);
}

TEST(RecordSchema, DescribesItselfForDocsAndReaders) {
  const std::vector<FieldDoc> docs = outer_schema().docs();
  ASSERT_EQ(docs.size(), 13u);  // the spread is three fields
  const nlohmann::json d = describe(docs);
  EXPECT_EQ(d[3]["kind"], "name");
  EXPECT_EQ(d[3]["allowed"], nlohmann::json({"red", "blue"}));
  EXPECT_EQ(d[6]["nullable"], true);
  EXPECT_EQ(d[7]["name"], "t_s");
  EXPECT_EQ(d[7]["unit"], "s");
  EXPECT_EQ(d[10]["kind"], "section");
  EXPECT_EQ(d[10]["fields"][1]["name"], "t_s");
  EXPECT_EQ(d[11]["kind"], "sections");
  const std::string md = markdown_table(docs);
  EXPECT_NE(md.find("| `list[].t_s` | number, s or null | a time |"), std::string::npos) << md;
  EXPECT_NE(md.find("valid \\| not"), std::string::npos) << md;
}

}  // namespace
}  // namespace overlap
