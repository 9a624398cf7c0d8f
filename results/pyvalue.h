// Python semantics on parsed JSON values, as the official checker's `eval`ed rules see them:
// equality, ordering comparisons that can raise, `in`, truthiness, str() and float().
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "results/mllog/pyjson.h"

namespace bert::results::py {

// Result of evaluating a Python expression: a bool, or an exception was raised.
enum class Outcome { False, True, Raised };
inline Outcome of(bool b) { return b ? Outcome::True : Outcome::False; }

bool is_number(const json& v);  // int, float or bool (bool is an int in Python)
bool equal(const json& a, const json& b);  // a == b
bool truthy(const json& v);                // bool(v)
// a <op> b for op in "<", "<=", ">", ">="; Raised when Python would raise TypeError.
Outcome compare(const json& a, std::string_view op, const json& b);
// `item in container` for a string item; Raised for containers Python cannot search.
Outcome contains(const json& container, std::string_view item);
std::string str(const json& v);   // str(v)
std::string repr(const json& v);  // repr(v)
// float(v) of the parser: nullopt + `raises_value_error` set when Python raises ValueError (a soft
// parse error); nullopt alone when it raises anything else (a crash of the official checker).
std::optional<double> to_float(const json& v, bool& raises_value_error);
// float(str) grammar: whitespace, sign, digits with single underscores between them, '.', exponent,
// inf / infinity / nan in any case.
std::optional<double> parse_float_string(std::string_view s);
bool is_space(unsigned char c);  // str.isspace() for one latin-1 code point

}  // namespace bert::results::py
