// Reads an MLPerf log the way mlcommons/logging's parser does (mlp_parser/ruleset_*.py).
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "results/mllog/pyjson.h"

namespace bert::results {

inline constexpr std::string_view kMllogToken = ":::MLLOG ";

struct LogRecord {
  std::string line;      // the stripped line from the token on (latin-1 bytes, as read)
  double timestamp = 0;  // float(time_ms)
  json key;              // usually a string; rules only match string keys
  json value;            // {"value": ..., "metadata": ...}, what rules see as `v`
  size_t lineno = 0;     // 0-based index among MLLOG lines
  size_t file_line = 0;  // 1-based line of the file (for messages that name file:line)
  const std::string* key_str() const { return key.is_string() ? &key.get_ref<const std::string&>() : nullptr; }
};

struct ParsedLog {
  std::vector<LogRecord> records;
  std::vector<std::pair<std::string, std::string>> errors;  // soft: (line, error), the log fails
  // Non-empty where the official parser raises something other than ValueError and the Python
  // checker dies; parsing stops at that line.
  std::string fatal;
  size_t mllog_lines = 0;
};

// `bytes` is the raw file content; latin-1, lines end at \n, \r\n or \r.
ParsedLog parse_log(std::string_view bytes);

// Calls fn(line) for every line of `bytes` with Python's universal newlines (no terminator).
template <typename Fn>
void for_each_line(std::string_view bytes, Fn&& fn) {
  size_t start = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] != '\n' && bytes[i] != '\r') continue;
    fn(bytes.substr(start, i - start));
    if (bytes[i] == '\r' && i + 1 < bytes.size() && bytes[i + 1] == '\n') ++i;
    start = i + 1;
  }
  if (start < bytes.size()) fn(bytes.substr(start));
}

// The part of `line` from the last MLLOG token on, stripped like Python's str.strip(); empty if
// the line has no token.
std::string_view mllog_payload_line(std::string_view line);

// latin-1 bytes to UTF-8 (every byte is one code point).
std::string latin1_to_utf8(std::string_view s);

}  // namespace bert::results
