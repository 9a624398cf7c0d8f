#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "results/mllog/pyjson.h"

namespace bert::results::pyjson {
namespace {

void append_u4(std::string& out, unsigned cp) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\u%04x", cp & 0xffffu);
  out += buf;
}

// Decodes one UTF-8 (or WTF-8, for lone surrogates that json.loads can produce) sequence.
// Malformed bytes are taken as latin-1 code points, so nothing is ever dropped.
unsigned next_code_point(std::string_view s, size_t& i) {
  auto b0 = static_cast<unsigned char>(s[i]);
  auto cont = [&](size_t k) {
    return i + k < s.size() && (static_cast<unsigned char>(s[i + k]) & 0xC0u) == 0x80u;
  };
  auto byte = [&](size_t k) { return static_cast<unsigned>(static_cast<unsigned char>(s[i + k]) & 0x3Fu); };
  if (b0 >= 0xC2 && b0 < 0xE0 && cont(1)) {
    unsigned cp = ((b0 & 0x1Fu) << 6) | byte(1);
    i += 2;
    return cp;
  }
  if (b0 >= 0xE0 && b0 < 0xF0 && cont(1) && cont(2)) {
    unsigned cp = ((b0 & 0x0Fu) << 12) | (byte(1) << 6) | byte(2);
    if (cp >= 0x800) {
      i += 3;
      return cp;
    }
  }
  if (b0 >= 0xF0 && b0 < 0xF5 && cont(1) && cont(2) && cont(3)) {
    unsigned cp = ((b0 & 0x07u) << 18) | (byte(1) << 12) | (byte(2) << 6) | byte(3);
    if (cp >= 0x10000 && cp <= 0x10FFFF) {
      i += 4;
      return cp;
    }
  }
  ++i;
  return b0;
}

void dump_string(std::string& out, std::string_view s) {
  out += '"';
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      if (c == '"' || c == '\\') out += '\\';
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    switch (c) {
      case '\n': out += "\\n"; ++i; continue;
      case '\r': out += "\\r"; ++i; continue;
      case '\t': out += "\\t"; ++i; continue;
      case '\b': out += "\\b"; ++i; continue;
      case '\f': out += "\\f"; ++i; continue;
      default: break;
    }
    unsigned cp = next_code_point(s, i);
    if (cp >= 0x10000) {
      cp -= 0x10000;
      append_u4(out, 0xD800u | (cp >> 10));
      append_u4(out, 0xDC00u | (cp & 0x3FFu));
    } else {
      append_u4(out, cp);
    }
  }
  out += '"';
}

}  // namespace

std::string float_repr(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(res.ptr - buf));
  std::string out;
  if (sci.front() == '-') {
    out += '-';
    sci.remove_prefix(1);
  }
  const size_t epos = sci.find('e');
  std::string digits;
  for (char ch : sci.substr(0, epos))
    if (ch != '.') digits += ch;
  int exp10 = 0;
  std::from_chars(sci.data() + epos + (sci[epos + 1] == '+' ? 2 : 1), sci.data() + sci.size(), exp10);
  const int decpt = exp10 + 1;  // value = 0.DIGITS * 10^decpt
  const int ndig = static_cast<int>(digits.size());
  if (decpt <= -4 || decpt > 16) {
    out += digits[0];
    if (ndig > 1) {
      out += '.';
      out.append(digits, 1);
    }
    char ebuf[16];
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
    out += ebuf;
  } else if (decpt <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-decpt), '0');
    out += digits;
  } else if (decpt >= ndig) {
    out += digits;
    out.append(static_cast<size_t>(decpt - ndig), '0');
    out += ".0";
  } else {
    out.append(digits, 0, static_cast<size_t>(decpt));
    out += '.';
    out.append(digits, static_cast<size_t>(decpt));
  }
  return out;
}

void dump_to(std::string& out, const json& v) {
  switch (v.type()) {
    case json::value_t::null: out += "null"; break;
    case json::value_t::boolean: out += v.get<bool>() ? "true" : "false"; break;
    case json::value_t::number_integer: out += std::to_string(v.get<int64_t>()); break;
    case json::value_t::number_unsigned: out += std::to_string(v.get<uint64_t>()); break;
    case json::value_t::number_float: out += float_repr(v.get<double>()); break;
    case json::value_t::string: dump_string(out, v.get_ref<const std::string&>()); break;
    case json::value_t::array:
    case json::value_t::object: {
      const bool obj = v.is_object();
      out += obj ? '{' : '[';
      for (auto e = v.begin(); e != v.end(); ++e) {
        if (e != v.begin()) out += ", ";
        if (obj) {
          dump_string(out, e.key());
          out += ": ";
        }
        dump_to(out, *e);
      }
      out += obj ? '}' : ']';
      break;
    }
    case json::value_t::binary:
    case json::value_t::discarded: out += "null"; break;
  }
}

namespace {
void dump_pretty(std::string& out, const json& v, int level) {
  const auto newline = [&](int l) {
    out += '\n';
    out.append(static_cast<size_t>(2 * l), ' ');
  };
  if ((v.is_array() || v.is_object()) && !v.empty()) {
    const bool obj = v.is_object();
    std::vector<std::string> keys;  // an object's, sorted (sort_keys=True)
    if (obj) {
      for (const auto& [k, e] : v.items()) keys.push_back(k);
      std::sort(keys.begin(), keys.end());
    }
    out += obj ? '{' : '[';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out += ',';
      newline(level + 1);
      if (obj) {
        dump_string(out, keys[i]);
        out += ": ";
      }
      dump_pretty(out, obj ? v.at(keys[i]) : v.at(i), level + 1);
    }
    newline(level);
    out += obj ? '}' : ']';
  } else {
    dump_to(out, v);
  }
}
}  // namespace

std::string dumps_pretty(const json& v) {
  std::string out;
  dump_pretty(out, v, 0);
  return out;
}

std::string dumps(const json& v) {
  std::string out;
  dump_to(out, v);
  return out;
}

}  // namespace bert::results::pyjson
