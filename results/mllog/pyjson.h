// JSON exactly as Python's `json` module writes and reads it, which is what the official MLPerf
// tools use: the writer must produce byte-identical lines and the checker must accept (and reject)
// the same payloads as `json.loads`.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace bert::results {

using json = nlohmann::ordered_json;

namespace pyjson {

// json.dumps(v) with default arguments: ", " and ": " separators, ensure_ascii escapes,
// floats as repr(), NaN / Infinity / -Infinity literals. Strings are read as UTF-8.
std::string dumps(const json& v);
void dump_to(std::string& out, const json& v);

// json.dumps(v, sort_keys=True, indent=2), the checker's "current context" dumps.
std::string dumps_pretty(const json& v);

// repr(float): shortest round-trip digits, exponent form below 1e-4 and from 1e16 on.
std::string float_repr(double d);

struct LoadResult {
  bool ok = false;
  json value;
  std::string error;  // the json.JSONDecodeError text when !ok
  bool too_deep = false;  // nesting Python would refuse with RecursionError (a crash, not a ValueError)
  int huge_ints = 0;      // integers beyond the double range (kept as +-inf; float() of them overflows)
};

// json.loads(text) where `text` is latin-1 decoded input: every byte is one code point. Strings in
// the result are UTF-8. Integers beyond 64 bits become doubles.
LoadResult loads(std::string_view latin1_text);

}  // namespace pyjson
}  // namespace bert::results
