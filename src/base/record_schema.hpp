// Records that carry their own schema: the one place that names a record's fields. A
// benchmark's record (a plain struct) lists its members once, with their JSON names,
// units and a sentence each; from that list come the JSON writer and reader (result
// files, --resume), the CSV columns, the console columns, the description embedded in
// every result file (which overlap-report reads) and the tables in docs/result-format.md.
//
// Member types: double, int, long, bool, std::string, std::optional of those (null when
// absent), std::vector<double|long|int|std::string>, an enum with its EnumNames table (or
// a vector of them), a nested record with its own Schema (a section), std::optional of
// one (an optional section, null when absent) or a std::vector of them (a list). A
// "spread" is a member with median, p25 and p75 written as three flat fields.
// A record may also name why some of its null fields are null (`null_reasons`).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "base/enum_names.hpp"

namespace overlap {

// A malformed value in a file being read back: one line naming the field.
class SchemaError : public std::runtime_error {
 public:
  explicit SchemaError(const std::string& message) : std::runtime_error(message) {}
};

enum class FieldKind {
  number,
  integer,
  boolean,
  text,
  name,
  numbers,
  names,
  section,
  sections,
  mapping
};
enum class Unit { none, seconds, bytes, ratio, percent, count };

std::string_view to_string(FieldKind kind);
std::string_view to_string(Unit unit);

// What a field is, independent of the C++ record: for docs, the embedded schema, tests.
struct FieldDoc {
  std::string name;
  FieldKind kind = FieldKind::number;
  Unit unit = Unit::none;
  bool nullable = false;
  std::string doc;
  std::vector<std::string> allowed;  // kind name/names: the vocabulary
  std::vector<FieldDoc> fields;      // kind section/sections: the nested record's fields
};

// [{"name", "kind", "unit", "nullable", "doc", "allowed"?, "fields"?}, ...]
nlohmann::json describe(const std::vector<FieldDoc>& fields);
// A Markdown table (key, type, meaning) with nested sections as further rows "a.b".
std::string markdown_table(const std::vector<FieldDoc>& fields);

namespace schema_detail {

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {};

template <class T>
constexpr FieldKind scalar_kind() {
  if constexpr (std::is_same_v<T, bool>)
    return FieldKind::boolean;
  else if constexpr (std::is_integral_v<T>)
    return FieldKind::integer;
  else if constexpr (std::is_floating_point_v<T>)
    return FieldKind::number;
  else
    return FieldKind::text;
}

// Checks the JSON type before converting: nlohmann would turn 1.5 into an int silently.
template <class T>
T scalar_from(const nlohmann::json& j, const std::string& name) {
  bool ok = false;
  if constexpr (std::is_same_v<T, bool>)
    ok = j.is_boolean();
  else if constexpr (std::is_integral_v<T>)
    ok = j.is_number_integer();
  else if constexpr (std::is_floating_point_v<T>)
    ok = j.is_number();
  else
    ok = j.is_string();
  if (!ok) {
    throw SchemaError("'" + name + "' is " + j.dump() + ", expected " +
                      std::string(to_string(scalar_kind<T>())));
  }
  return j.get<T>();
}

}  // namespace schema_detail

template <class R>
class Schema {
 public:
  struct Field {
    FieldDoc doc;
    std::function<void(const R&, nlohmann::json&)> write;  // adds its key(s) to the object
    std::function<void(R&, const nlohmann::json&)> read;   // from the whole object
  };

  // A plain member: scalar, optional scalar or vector of scalars.
  template <class T>
  Schema& add(std::string name, T R::*member, Unit unit, std::string doc) {
    using namespace schema_detail;
    FieldDoc d{name, FieldKind::number, unit, false, std::move(doc), {}, {}};
    if constexpr (is_optional<T>::value) {
      d.kind = scalar_kind<typename T::value_type>();
      d.nullable = true;
    } else if constexpr (is_vector<T>::value) {
      using V = typename T::value_type;
      d.kind = std::is_same_v<V, std::string> ? FieldKind::names : FieldKind::numbers;
    } else {
      d.kind = scalar_kind<T>();
    }
    fields_.push_back(
        {std::move(d),
         [name, member](const R& r, nlohmann::json& j) { j[name] = to_json(r.*member); },
         [name, member](R& r, const nlohmann::json& j) { r.*member = from_json<T>(j, name); }});
    return *this;
  }

  // A member of an enum vocabulary (or a vector of them), written by name.
  template <class E, std::size_t N>
  Schema& add(std::string name, E R::*member, const EnumNames<E, N>& names, std::string doc) {
    fields_.push_back(
        {{name, FieldKind::name, Unit::none, false, std::move(doc), names.names(), {}},
         [name, member, &names](const R& r, nlohmann::json& j) {
           j[name] = std::string(names.name(r.*member));
         },
         [name, member, &names](R& r, const nlohmann::json& j) {
           r.*member = parse_name(required(j, name), name, names);
         }});
    return *this;
  }
  template <class E, std::size_t N>
  Schema& add(std::string name, std::optional<E> R::*member, const EnumNames<E, N>& names,
              std::string doc) {
    fields_.push_back(
        {{name, FieldKind::name, Unit::none, true, std::move(doc), names.names(), {}},
         [name, member, &names](const R& r, nlohmann::json& j) {
           const auto& v = r.*member;
           j[name] = v ? nlohmann::json(std::string(names.name(*v))) : nlohmann::json(nullptr);
         },
         [name, member, &names](R& r, const nlohmann::json& j) {
           const nlohmann::json& v = required(j, name);
           r.*member = v.is_null() ? std::nullopt : std::optional<E>(parse_name(v, name, names));
         }});
    return *this;
  }
  template <class E, std::size_t N>
  Schema& add(std::string name, std::vector<E> R::*member, const EnumNames<E, N>& names,
              std::string doc) {
    fields_.push_back(
        {{name, FieldKind::names, Unit::none, false, std::move(doc), names.names(), {}},
         [name, member, &names](const R& r, nlohmann::json& j) {
           nlohmann::json a = nlohmann::json::array();
           for (E e : r.*member) a.push_back(std::string(names.name(e)));
           j[name] = a;
         },
         [name, member, &names](R& r, const nlohmann::json& j) {
           const nlohmann::json& a = required(j, name);
           if (!a.is_array()) throw SchemaError("'" + name + "' is not a list");
           (r.*member).clear();
           for (const auto& e : a) (r.*member).push_back(parse_name(e, name, names));
         }});
    return *this;
  }

  // A member with median, p25 and p75 (and nothing else needed): three flat fields,
  // NAME+SUFFIX, NAME_p25+SUFFIX, NAME_p75+SUFFIX ("t_comm_ref_s", "t_comm_ref_p25_s").
  // The member is std::optional: null all three when absent.
  template <class S>
  Schema& spread(const std::string& name, const std::string& suffix, std::optional<S> R::*member,
                 Unit unit, const std::string& doc) {
    const std::string parts[3][2] = {{name + suffix, doc},
                                     {name + "_p25" + suffix, "25th percentile of " + name},
                                     {name + "_p75" + suffix, "75th percentile of " + name}};
    for (int k = 0; k < 3; ++k) {
      const std::string key = parts[k][0];
      fields_.push_back(
          {{key, FieldKind::number, unit, true, parts[k][1], {}, {}},
           [key, member, k](const R& r, nlohmann::json& j) {
             const auto& v = r.*member;
             j[key] = v ? nlohmann::json(k == 0   ? v->median
                                         : k == 1 ? v->p25
                                                  : v->p75)
                        : nlohmann::json(nullptr);
           },
           [key, member, k](R& r, const nlohmann::json& j) {
             const nlohmann::json& v = required(j, key);
             if (v.is_null()) {
               r.*member = std::nullopt;
               return;
             }
             if (!(r.*member)) r.*member = S{};
             const double x = schema_detail::scalar_from<double>(v, key);
             (k == 0 ? (r.*member)->median : k == 1 ? (r.*member)->p25 : (r.*member)->p75) = x;
           }});
    }
    return *this;
  }

  // A nested record: S, std::optional<S> (null when absent) or std::vector<S>.
  // `missing_is_null` (std::optional only): a record without the key reads as null, for a
  // section added to a record that files written before it lack.
  template <class M, class S>
  Schema& section(std::string name, M R::*member, const Schema<S>& sub, std::string doc,
                  bool missing_is_null = false) {
    FieldDoc d{name, FieldKind::section, Unit::none, false, std::move(doc), {}, sub.docs()};
    if constexpr (schema_detail::is_vector<M>::value) d.kind = FieldKind::sections;
    if constexpr (schema_detail::is_optional<M>::value) d.nullable = true;
    fields_.push_back({std::move(d),
                       [name, member, &sub](const R& r, nlohmann::json& j) {
                         const M& m = r.*member;
                         if constexpr (schema_detail::is_vector<M>::value) {
                           nlohmann::json a = nlohmann::json::array();
                           for (const S& s : m) a.push_back(sub.to_json(s));
                           j[name] = a;
                         } else if constexpr (schema_detail::is_optional<M>::value) {
                           j[name] = m ? sub.to_json(*m) : nlohmann::json(nullptr);
                         } else {
                           j[name] = sub.to_json(m);
                         }
                       },
                       [name, member, &sub, missing_is_null](R& r, const nlohmann::json& j) {
                         M& m = r.*member;
                         if constexpr (schema_detail::is_optional<M>::value) {
                           if (missing_is_null && !j.contains(name)) {
                             m = std::nullopt;
                             return;
                           }
                         }
                         const nlohmann::json& v = required(j, name);
                         if constexpr (schema_detail::is_vector<M>::value) {
                           if (!v.is_array()) throw SchemaError("'" + name + "' is not a list");
                           m.clear();
                           for (const auto& e : v) m.push_back(sub.from_json(e));
                         } else if constexpr (schema_detail::is_optional<M>::value) {
                           m = v.is_null() ? std::nullopt : std::optional<S>(sub.from_json(v));
                         } else {
                           m = sub.from_json(v);
                         }
                       }});
    return *this;
  }

  // A map of texts ({"name": "value"}), e.g. the MPI environment of a run.
  // `omit_empty`: written only when not empty (and read as empty when absent).
  Schema& mapping(std::string name, std::map<std::string, std::string> R::*member, std::string doc,
                  bool omit_empty = false) {
    fields_.push_back({{name, FieldKind::mapping, Unit::none, false, std::move(doc), {}, {}},
                       [name, member, omit_empty](const R& r, nlohmann::json& j) {
                         if (!omit_empty || !(r.*member).empty()) j[name] = r.*member;
                       },
                       [name, member, omit_empty](R& r, const nlohmann::json& j) {
                         (r.*member).clear();
                         if (omit_empty && !j.contains(name)) return;
                         const nlohmann::json& v = required(j, name);
                         if (!v.is_object()) throw SchemaError("'" + name + "' is not an object");
                         for (auto it = v.begin(); it != v.end(); ++it) {
                           (r.*member)[it.key()] =
                               schema_detail::scalar_from<std::string>(it.value(), it.key());
                         }
                       }});
    return *this;
  }

  // Why some null fields of a valid record are null: {"field": "reason"}, written only
  // when there is one (a field that cannot be measured here is null with a reason).
  Schema& reasons(std::map<std::string, std::string> R::*member) {
    return mapping("null_reasons", member,
                   "why a field is null although the record is valid, per field (absent when "
                   "none is)",
                   true);
  }

  nlohmann::json to_json(const R& r) const {
    nlohmann::json j = nlohmann::json::object();
    for (const Field& f : fields_) f.write(r, j);
    return j;
  }

  // Throws SchemaError naming the field when a value is missing or of the wrong type.
  R from_json(const nlohmann::json& j) const {
    if (!j.is_object()) throw SchemaError("expected an object, got " + j.dump());
    R r{};
    for (const Field& f : fields_) f.read(r, j);
    return r;
  }

  std::vector<FieldDoc> docs() const {
    std::vector<FieldDoc> d;
    for (const Field& f : fields_) d.push_back(f.doc);
    return d;
  }

  const std::vector<Field>& fields() const { return fields_; }

 private:
  static const nlohmann::json& required(const nlohmann::json& j, const std::string& name) {
    if (!j.contains(name)) throw SchemaError("'" + name + "' is missing");
    return j.at(name);
  }

  template <class T>
  static nlohmann::json to_json(const T& v) {
    if constexpr (schema_detail::is_optional<T>::value) {
      return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
    } else {
      return nlohmann::json(v);
    }
  }

  template <class T>
  static T from_json(const nlohmann::json& j, const std::string& name) {
    using namespace schema_detail;
    const nlohmann::json& v = required(j, name);
    if constexpr (is_optional<T>::value) {
      if (v.is_null()) return std::nullopt;
      return scalar_from<typename T::value_type>(v, name);
    } else if constexpr (is_vector<T>::value) {
      if (!v.is_array()) throw SchemaError("'" + name + "' is not a list");
      T out;
      for (const auto& e : v) out.push_back(scalar_from<typename T::value_type>(e, name));
      return out;
    } else {
      return scalar_from<T>(v, name);
    }
  }

  template <class E, std::size_t N>
  static E parse_name(const nlohmann::json& v, const std::string& name,
                      const EnumNames<E, N>& names) {
    if (v.is_string()) {
      if (auto e = names.parse(v.get<std::string>())) return *e;
    }
    throw SchemaError("'" + name + "' is " + v.dump() + ", not " + names.with_article() +
                      " (allowed: " + names.list() + ")");
  }

  std::vector<Field> fields_;
};

}  // namespace overlap
