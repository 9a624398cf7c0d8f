// json.loads with Python's acceptances: NaN / Infinity / -Infinity, duplicate keys (last value wins,
// first position kept), strict strings (no raw control characters), lone surrogates via \u escapes.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>

#include "results/mllog/pyjson.h"

namespace bert::results::pyjson {
namespace {

// CPython's C scanner recurses per nesting level and gives RecursionError near the interpreter's
// limit of 1000 frames; we stop well before our own stack could suffer.
constexpr int kMaxDepth = 900;
// Python 3.11 refuses int() of longer digit strings with a ValueError (a decode error here).
constexpr size_t kMaxIntDigits = 4300;

struct DecodeError {
  std::string msg;
  size_t pos;
};
struct TooDeep {};

void append_utf8(std::string& out, unsigned cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}

  json parse_document() {
    skip_ws();
    json v = value(0);
    skip_ws();
    if (i_ != s_.size()) throw DecodeError{"Extra data", i_};
    return v;
  }

 private:
  bool at(char c) const { return i_ < s_.size() && s_[i_] == c; }
  bool starts(std::string_view lit) const { return s_.substr(i_, lit.size()) == lit; }
  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  static bool digit(char c) { return c >= '0' && c <= '9'; }

  json value(int depth) {
    if (i_ >= s_.size()) throw DecodeError{"Expecting value", i_};
    const char c = s_[i_];
    if (c == '"') return json(string());
    if (c == '{') return object(depth + 1);
    if (c == '[') return array(depth + 1);
    if (starts("null")) { i_ += 4; return json(nullptr); }
    if (starts("true")) { i_ += 4; return json(true); }
    if (starts("false")) { i_ += 5; return json(false); }
    if (c == '-' || digit(c)) {
      if (auto n = number()) return *n;
    }
    if (starts("NaN")) { i_ += 3; return json(std::numeric_limits<double>::quiet_NaN()); }
    if (starts("Infinity")) { i_ += 8; return json(std::numeric_limits<double>::infinity()); }
    if (starts("-Infinity")) { i_ += 9; return json(-std::numeric_limits<double>::infinity()); }
    throw DecodeError{"Expecting value", i_};
  }

  // -?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?  — returns nothing when the integer part does not match.
  std::optional<json> number() {
    size_t j = i_;
    if (j < s_.size() && s_[j] == '-') ++j;
    if (j >= s_.size() || !digit(s_[j])) return std::nullopt;
    if (s_[j] == '0') {
      ++j;
    } else {
      while (j < s_.size() && digit(s_[j])) ++j;
    }
    bool is_float = false;
    if (j + 1 < s_.size() && s_[j] == '.' && digit(s_[j + 1])) {
      is_float = true;
      j += 2;
      while (j < s_.size() && digit(s_[j])) ++j;
    }
    if (j < s_.size() && (s_[j] == 'e' || s_[j] == 'E')) {
      size_t k = j + 1;
      if (k < s_.size() && (s_[k] == '+' || s_[k] == '-')) ++k;
      if (k < s_.size() && digit(s_[k])) {
        while (k < s_.size() && digit(s_[k])) ++k;
        is_float = true;
        j = k;
      }
    }
    std::string text(s_.substr(i_, j - i_));
    if (!is_float && text.size() - (text[0] == '-' ? 1 : 0) > kMaxIntDigits)
      throw DecodeError{"Exceeds the limit (4300 digits) for integer string conversion", i_};
    i_ = j;
    if (!is_float) {
      int64_t iv = 0;
      auto r = std::from_chars(text.data(), text.data() + text.size(), iv);
      if (r.ec == std::errc() && r.ptr == text.data() + text.size()) return json(iv);
      uint64_t uv = 0;
      r = std::from_chars(text.data(), text.data() + text.size(), uv);
      if (r.ec == std::errc() && r.ptr == text.data() + text.size()) return json(uv);
    }
    const double d = std::strtod(text.c_str(), nullptr);
    if (!is_float && std::isinf(d)) ++huge_ints_;
    return json(d);
  }

 public:
  int huge_ints() const { return huge_ints_; }

 private:

  unsigned hex4(size_t at) const {
    if (at + 4 > s_.size()) throw DecodeError{"Invalid \\uXXXX escape", at};
    unsigned v = 0;
    for (size_t k = at; k < at + 4; ++k) {
      const char c = s_[k];
      v <<= 4;
      if (digit(c)) v |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<unsigned>(c - 'A' + 10);
      else throw DecodeError{"Invalid \\uXXXX escape", at};
    }
    return v;
  }

  std::string string() {
    const size_t begin = i_++;
    std::string out;
    for (;;) {
      if (i_ >= s_.size()) throw DecodeError{"Unterminated string starting at", begin};
      size_t run = i_;  // plain ASCII goes over in one piece
      while (run < s_.size()) {
        const auto b = static_cast<unsigned char>(s_[run]);
        if (b == '"' || b == '\\' || b < 0x20 || b >= 0x80) break;
        ++run;
      }
      if (run > i_) {
        out.append(s_.data() + i_, run - i_);
        i_ = run;
        continue;
      }
      const auto c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        ++i_;
        return out;
      }
      if (c < 0x20) throw DecodeError{"Invalid control character at", i_};
      if (c != '\\') {
        append_utf8(out, c);  // latin-1: one byte is one code point
        ++i_;
        continue;
      }
      if (i_ + 1 >= s_.size()) throw DecodeError{"Unterminated string starting at", begin};
      const char e = s_[i_ + 1];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = hex4(i_ + 2);
          i_ += 6;
          if (cp >= 0xD800 && cp <= 0xDBFF && starts("\\u")) {
            unsigned lo = hex4(i_ + 2);
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
              i_ += 6;
            }
          }
          append_utf8(out, cp);
          continue;
        }
        default: throw DecodeError{"Invalid \\escape", i_};
      }
      i_ += 2;
    }
  }

  // An object's or an array's elements up to `close`, as Python's scanner reads them: each by `element`,
  // ',' between them.
  template <class Element>
  void elements(int depth, char close, Element element) {
    if (depth > kMaxDepth) throw TooDeep{};
    ++i_;
    skip_ws();
    if (at(close)) {
      ++i_;
      return;
    }
    for (;;) {
      element();
      skip_ws();
      if (at(close)) {
        ++i_;
        return;
      }
      if (!at(',')) throw DecodeError{"Expecting ',' delimiter", i_};
      ++i_;
      skip_ws();
    }
  }

  json object(int depth) {
    json obj = json::object();
    elements(depth, '}', [&] {
      if (!at('"')) throw DecodeError{"Expecting property name enclosed in double quotes", i_};
      std::string k = string();
      skip_ws();
      if (!at(':')) throw DecodeError{"Expecting ':' delimiter", i_};
      ++i_;
      skip_ws();
      obj[k] = value(depth);
    });
    return obj;
  }

  json array(int depth) {
    json arr = json::array();
    elements(depth, ']', [&] { arr.push_back(value(depth)); });
    return arr;
  }

  std::string_view s_;
  size_t i_ = 0;
  int huge_ints_ = 0;
};

}  // namespace

LoadResult loads(std::string_view latin1_text) {
  LoadResult r;
  Scanner sc(latin1_text);
  try {
    r.value = sc.parse_document();
    r.ok = true;
    r.huge_ints = sc.huge_ints();
  } catch (const DecodeError& e) {
    r.error = e.msg + ": char " + std::to_string(e.pos);
  } catch (const TooDeep&) {
    r.too_deep = true;
    r.error = "maximum recursion depth exceeded while decoding a JSON document";
  }
  return r;
}

}  // namespace bert::results::pyjson
