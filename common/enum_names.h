// A setting's words as one table: the enum value for each word a file uses. The parse, the word a value
// is written as, and the schema's choices all come from the same rows, so a value is a string only at
// the edges (YAML, JSON, messages) and an enum everywhere else.
//
//   inline constexpr EnumNames<LogSource, 2> kLogSourceNames{{{LogSource::Rank0Stdout, "rank0-stdout"}, {LogSource::File, "file"}}};
//   enum_name(LogSource::File, kLogSourceNames) == "file"; parse_enum("file", kLogSourceNames) == LogSource::File
#pragma once
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bert {

template <typename E>
struct EnumName {
  E value;
  const char* name;
};

template <typename E, std::size_t N>
using EnumNames = std::array<EnumName<E>, N>;

template <typename E, std::size_t N>
constexpr const char* enum_name(E value, const EnumNames<E, N>& names) {
  for (const auto& row : names)
    if (row.value == value) return row.name;
  return "?";
}

template <typename E, std::size_t N>
constexpr std::optional<E> parse_enum(std::string_view word, const EnumNames<E, N>& names) {
  for (const auto& row : names)
    if (word == row.name) return row.value;
  return std::nullopt;
}

// The words, in table order: a schema's choices.
template <typename E, std::size_t N>
std::vector<std::string> enum_choices(const EnumNames<E, N>& names) {
  std::vector<std::string> out;
  for (const auto& row : names) out.emplace_back(row.name);
  return out;
}

}  // namespace bert
