#include "harness/plan/plan_errors.h"

#include <filesystem>

namespace bert::harness::detail {

void fail_at(const Config& cfg, const std::string& key, const std::string& msg) {
  Loc loc = cfg.loc(key);
  if (loc.line == 0 && loc.file == cfg.file()) loc.line = loc.col = 1;  // a default: point at the file
  throw ConfigError(loc, key, msg);
}

std::string field_key(const Config& cfg, const std::string& field) {
  if (field == "topology") return cfg.given("topology.xml") ? "topology.xml" : "topology.synthetic";
  if (field == "binding.ranks_per_node") return "nodes.ranks_per_node";
  return field;
}

std::string resolve_path(const Config& cfg, const std::string& key) {
  namespace fs = std::filesystem;
  std::string v = cfg.str(key);
  if (v.empty() || fs::path(v).is_absolute()) return v;
  Loc loc = cfg.loc(key);
  if (loc.line == 0) return v;
  return (fs::path(loc.file).parent_path() / v).lexically_normal().string();
}

}  // namespace bert::harness::detail
