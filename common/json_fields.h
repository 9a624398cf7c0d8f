// A struct's JSON form written once, as a member table: each row a key and a member, required or
// optional. write_fields and read_fields walk the same table, so the to- and from-JSON of a type
// cannot list different fields. Members convert through nlohmann's to_json/from_json (ADL for our
// own types); a std::optional is null when empty.
//
//   constexpr auto kGpuFields = std::make_tuple(field("index", &Gpu::index), optional_field("vendor", &Gpu::vendor));
//   BERT_JSON_FIELDS(ojson, Gpu, kGpuFields)   // to_json and from_json of Gpu, in Gpu's namespace
#pragma once
#include <optional>
#include <tuple>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "common/enum_names.h"

namespace bert {

template <typename T, typename M>
struct JsonField {
  const char* key;
  M T::*member;
  bool required;  // false: an absent key leaves the member's default
};

template <typename T, typename M>
constexpr JsonField<T, M> field(const char* key, M T::*member) { return {key, member, true}; }
template <typename T, typename M>
constexpr JsonField<T, M> optional_field(const char* key, M T::*member) { return {key, member, false}; }

// The members of `t` named by `fields` into the object `j`, in the table's order.
template <typename J, typename T, typename Fields>
void write_fields(J& j, const T& t, const Fields& fields) {
  if (!j.is_object()) j = J::object();
  std::apply([&](const auto&... f) { ((j[f.key] = t.*(f.member)), ...); }, fields);
}

// The members of `t` named by `fields` from the object `j`; throws nlohmann::json::exception for a
// missing required key or a mistyped value.
template <typename J, typename T, typename Fields>
void read_fields(const J& j, T& t, const Fields& fields) {
  auto read = [&](const auto& f) {
    if (f.required) j.at(f.key).get_to(t.*(f.member));
    else if (auto it = j.find(f.key); it != j.end()) it->get_to(t.*(f.member));
  };
  std::apply([&](const auto&... f) { (read(f), ...); }, fields);
}

// A whole object from / to its member table, for a type's own to_json()/from_json() members.
template <typename J, typename T, typename Fields>
J fields_to_json(const T& t, const Fields& fields) {
  J j = J::object();
  write_fields(j, t, fields);
  return j;
}
template <typename T, typename J, typename Fields>
T fields_from_json(const J& j, const Fields& fields) {
  T t;
  read_fields(j, t, fields);
  return t;
}

}  // namespace bert

// to_json(J&, const TYPE&) and from_json(const J&, TYPE&) over the member table TABLE (for ADL: use it
// in TYPE's namespace).
#define BERT_JSON_FIELDS(J, TYPE, TABLE)                                           \
  void to_json(J& j, const TYPE& v) { ::bert::write_fields(j, v, TABLE); }         \
  void from_json(const J& j, TYPE& v) { ::bert::read_fields(j, v, TABLE); }

// The declarations of TYPE's to_json/from_json (in a header; BERT_JSON_FIELDS defines them).
#define BERT_JSON_DECLARE(J, TYPE)   \
  void to_json(J& j, const TYPE& v); \
  void from_json(const J& j, TYPE& v);

// to_json/from_json of the enum E as its word in the table NAMES (common/enum_names.h); reading a word
// outside the table throws std::invalid_argument.
#define BERT_JSON_ENUM(J, E, NAMES)                                                               \
  void to_json(J& j, E v) { j = ::bert::enum_name(v, NAMES); }                                    \
  void from_json(const J& j, E& v) {                                                              \
    const std::string word = j.template get<std::string>();                                      \
    if (auto parsed = ::bert::parse_enum(word, NAMES)) v = *parsed;                               \
    else throw std::invalid_argument("'" + word + "' is not a word of " #E);                     \
  }

// std::optional<T> as null or the value (nlohmann 3.11.2 has no conversion of its own).
template <typename T>
struct nlohmann::adl_serializer<std::optional<T>> {
  template <typename J>
  static void to_json(J& j, const std::optional<T>& v) {
    if (v) j = *v;
    else j = nullptr;
  }
  template <typename J>
  static void from_json(const J& j, std::optional<T>& v) {
    if (j.is_null()) v.reset();
    else v = j.template get<T>();
  }
};
