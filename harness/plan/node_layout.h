// One node's topology and local ranks (every node of a job is alike): topology source from the YAML,
// GPUs per node, what a rank stands for, ranks per node, and binding::plan_node's per-rank binding.
#pragma once
#include <vector>

#include "binding/binding.h"
#include "harness/config/config.h"

namespace bert::harness {

struct NodeLayout {
  binding::NodeTopology topology;
  std::vector<binding::RankBinding> ranks;
  int gpus = 0;                                  // GPUs per node the job uses
  binding::RankUnit unit = binding::RankUnit::Gpu;
};

// Throws UserError at the key behind any problem (also the binding planner's).
NodeLayout plan_node_layout(const Config& cfg);

}  // namespace bert::harness
