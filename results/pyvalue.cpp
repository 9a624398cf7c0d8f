#include "results/pyvalue.h"

#include <cmath>
#include <cstdlib>
#include <limits>

namespace bert::results::py {
namespace {

long double as_long_double(const json& v) {
  switch (v.type()) {
    case json::value_t::boolean: return v.get<bool>() ? 1.0L : 0.0L;
    case json::value_t::number_integer: return static_cast<long double>(v.get<int64_t>());
    case json::value_t::number_unsigned: return static_cast<long double>(v.get<uint64_t>());
    default: return static_cast<long double>(v.get<double>());
  }
}

bool ieq(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  return true;
}

std::string repr_string(const std::string& s) {
  // Python prefers single quotes unless the text has one and no double quote.
  const bool use_double = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
  const char q = use_double ? '"' : '\'';
  std::string out(1, q);
  for (char c : s) {
    if (c == q || c == '\\') out += '\\';
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else out += c;
  }
  out += q;
  return out;
}

}  // namespace

bool is_space(unsigned char c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0;
}

bool is_number(const json& v) { return v.is_number() || v.is_boolean(); }

bool equal(const json& a, const json& b) {
  if (is_number(a) && is_number(b)) return as_long_double(a) == as_long_double(b);
  if (a.type() != b.type()) {
    return false;
  }
  switch (a.type()) {
    case json::value_t::null: return true;
    case json::value_t::string: return a.get_ref<const std::string&>() == b.get_ref<const std::string&>();
    case json::value_t::array: {
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i)
        if (!equal(a[i], b[i])) return false;
      return true;
    }
    case json::value_t::object: {
      if (a.size() != b.size()) return false;
      for (const auto& [k, v] : a.items()) {
        auto it = b.find(k);
        if (it == b.end() || !equal(v, *it)) return false;
      }
      return true;
    }
    default: return false;
  }
}

bool truthy(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return false;
    case json::value_t::boolean: return v.get<bool>();
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: return as_long_double(v) != 0.0L;
    case json::value_t::string:
    case json::value_t::array:
    case json::value_t::object: return !v.empty();
    default: return false;
  }
}

Outcome compare(const json& a, std::string_view op, const json& b) {
  if (is_number(a) && is_number(b)) {
    const long double x = as_long_double(a), y = as_long_double(b);
    if (op == "<") return of(x < y);
    if (op == "<=") return of(x <= y);
    if (op == ">") return of(x > y);
    return of(x >= y);
  }
  if (a.is_string() && b.is_string()) {
    const int c = a.get_ref<const std::string&>().compare(b.get_ref<const std::string&>());
    if (op == "<") return of(c < 0);
    if (op == "<=") return of(c <= 0);
    if (op == ">") return of(c > 0);
    return of(c >= 0);
  }
  return Outcome::Raised;  // the checker's rules only compare numbers and strings
}

Outcome contains(const json& container, std::string_view item) {
  switch (container.type()) {
    case json::value_t::object: return of(container.find(std::string(item)) != container.end());
    case json::value_t::string:
      return of(container.get_ref<const std::string&>().find(item) != std::string::npos);
    case json::value_t::array:
      for (const auto& e : container)
        if (e.is_string() && e.get_ref<const std::string&>() == item) return Outcome::True;
      return Outcome::False;
    default: return Outcome::Raised;
  }
}

std::string repr(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "None";
    case json::value_t::boolean: return v.get<bool>() ? "True" : "False";
    case json::value_t::number_float: {
      const double d = v.get<double>();
      if (std::isnan(d)) return "nan";
      if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
      return pyjson::float_repr(d);
    }
    case json::value_t::string: return repr_string(v.get_ref<const std::string&>());
    case json::value_t::array: {
      std::string out = "[";
      for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + repr(v[i]);
      return out + "]";
    }
    case json::value_t::object: {
      std::string out = "{";
      bool first = true;
      for (const auto& [k, e] : v.items()) {
        out += (first ? "" : ", ") + repr_string(k) + ": " + repr(e);
        first = false;
      }
      return out + "}";
    }
    default: return pyjson::dumps(v);
  }
}

std::string str(const json& v) { return v.is_string() ? v.get<std::string>() : repr(v); }

std::optional<double> parse_float_string(std::string_view s) {
  // The text is UTF-8 here, so U+0085 and U+00A0 are two bytes each.
  auto wide_space = [](std::string_view t) { return t == "\xc2\x85" || t == "\xc2\xa0"; };
  for (;;) {
    if (!s.empty() && is_space(static_cast<unsigned char>(s.front())) && static_cast<unsigned char>(s.front()) < 0x80)
      s.remove_prefix(1);
    else if (s.size() >= 2 && wide_space(s.substr(0, 2)))
      s.remove_prefix(2);
    else if (!s.empty() && is_space(static_cast<unsigned char>(s.back())) && static_cast<unsigned char>(s.back()) < 0x80)
      s.remove_suffix(1);
    else if (s.size() >= 2 && wide_space(s.substr(s.size() - 2)))
      s.remove_suffix(2);
    else
      break;
  }
  std::string clean;
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) clean += s[i++];
  const std::string_view rest = s.substr(i);
  const bool neg = !clean.empty() && clean[0] == '-';
  if (ieq(rest, "inf") || ieq(rest, "infinity"))
    return neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  if (ieq(rest, "nan")) return std::numeric_limits<double>::quiet_NaN();
  auto digits = [&](bool required) {  // [0-9]+(_[0-9]+)*
    size_t n = 0;
    while (i < s.size()) {
      if (s[i] >= '0' && s[i] <= '9') {
        clean += s[i++];
        ++n;
      } else if (s[i] == '_' && n > 0 && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '9') {
        ++i;
      } else {
        break;
      }
    }
    return n > 0 || !required;
  };
  const size_t int_start = clean.size();
  digits(false);
  bool have_digits = clean.size() > int_start;
  if (i < s.size() && s[i] == '.') {
    clean += s[i++];
    const size_t frac_start = clean.size();
    digits(false);
    have_digits = have_digits || clean.size() > frac_start;
  }
  if (!have_digits) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    clean += s[i++];
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) clean += s[i++];
    if (!digits(true)) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  return std::strtod(clean.c_str(), nullptr);
}

std::optional<double> to_float(const json& v, bool& raises_value_error) {
  raises_value_error = false;
  if (is_number(v)) return static_cast<double>(as_long_double(v));
  if (v.is_string()) {
    auto d = parse_float_string(v.get_ref<const std::string&>());
    if (!d) raises_value_error = true;
    return d;
  }
  return std::nullopt;  // float(None / list / dict): TypeError
}

}  // namespace bert::results::py
