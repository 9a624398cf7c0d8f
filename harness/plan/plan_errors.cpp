#include "harness/plan/plan_errors.h"

namespace bert::harness::detail {

std::string field_key(const Config& cfg, const std::string& field) {
  if (field == "topology") return cfg.given("topology.xml") ? "topology.xml" : "topology.synthetic";
  if (field == "binding.ranks_per_node") return "nodes.ranks_per_node";
  return field;
}

}  // namespace bert::harness::detail
