// A validated system configuration: the YAML file (with `extends:` resolved), the environment
// overrides users type (NEXP, DATADIR, ...) and `--set key.path=value`, checked against the schema.
// Accessors return the value or the schema default; loc() says where a value was written.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/user_error.h"
#include "harness/config/tree.h"

namespace bert::harness {

struct Overrides {
  std::map<std::string, std::string> env;  // the process environment (only the names below are read)
  std::vector<std::string> sets;           // "key.path=value" from --set
};

// Environment variable -> key path, as in MLPerf's run.sub/config_*.sh.
const std::vector<std::pair<std::string, std::string>>& env_override_keys();

class Config {
 public:
  // Throws UserError for anything wrong (file, syntax, unknown key, type, range, override).
  static Config load(const std::string& path, const Overrides& ov = {});
  // From YAML text (tests); `file` is the name used in messages and for relative paths.
  static Config from_text(const std::string& text, const std::string& file, const Overrides& ov = {});

  std::string str(const std::string& path) const;
  long long integer(const std::string& path) const;   // Int, or IntOrAuto (auto -> -1)
  double real(const std::string& path) const;
  bool flag(const std::string& path) const;
  bool is_auto(const std::string& path) const;
  std::vector<std::string> strings(const std::string& path) const;
  std::vector<long long> integers(const std::string& path) const;
  std::vector<std::pair<std::string, std::string>> string_map(const std::string& path) const;
  bool given(const std::string& path) const;          // written in the file or overridden (not a default)

  Loc loc(const std::string& path) const;             // the value's position (file start for defaults)
  Loc item_loc(const std::string& path, size_t index) const;  // a list item's position
  Loc item_loc(const std::string& path, const std::string& name) const;  // a map item's (trainer.env NAME)
  // Throws a UserError at `path`'s place (file:1:1 when the value is a default).
  [[noreturn]] void fail(const std::string& path, const std::string& msg) const;
  // A path value: relative to its YAML file when written there; as given from the environment or --set.
  std::string path(const std::string& key) const;

  const std::string& file() const { return file_; }
  std::string base_dir() const;                       // directory of the file, for relative paths

 private:
  static Config build(Tree root, const std::string& file, const Overrides& ov);
  const Tree* leaf(const std::string& path) const;
  std::map<std::string, Tree> values_;
  std::string file_;
};

}  // namespace bert::harness
