// A user-caused configuration error: "file:line:col: key.path: message", exit code 2.
#pragma once
#include <stdexcept>
#include <string>

namespace bert::harness {

// Where a value came from: a YAML file position (line/col 1-based), or an override
// ("environment variable NEXP", "--set") with line 0.
struct Loc {
  std::string file;
  int line = 0;
  int col = 0;
  std::string str() const {
    return line > 0 ? file + ":" + std::to_string(line) + ":" + std::to_string(col) : file;
  }
};

struct ConfigError : std::runtime_error {
  ConfigError(const Loc& where, const std::string& key_path, const std::string& msg)
      : std::runtime_error(where.str() + ": " + (key_path.empty() ? "" : key_path + ": ") + msg),
        loc(where), key(key_path), message(msg) {}
  Loc loc;
  std::string key;
  std::string message;
};

}  // namespace bert::harness
