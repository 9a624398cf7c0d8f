// plan.json's `nodes`: where the ranks run, each rank's binding and environment. The one JSON form of
// them (member tables in plan_nodes.cpp), written and read by the harness's Plan (harness/plan/plan.h)
// and read by `bind --plan` (bind_plan.cpp) for the rank it wraps.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "binding/binding.h"
#include "common/json_fields.h"

namespace bert::binding {

struct RankPlan {
  int global_rank = 0;
  int node_index = 0;
  int local_rank = 0;
  RankBinding binding;                     // gpu, cpus, mems
  std::map<std::string, std::string> env;  // per-rank env the local launcher sets (RANK, LOCAL_RANK, ...)
  std::vector<std::string> command_prefix; // ranks the executor starts: words before Plan::launch (binding.apply
                                           // launcher: numactl ...; a runtime binding each rank: podman run ...)
};

struct NodePlan {
  std::string hostname;                    // "localhost", a Slurm node, an mpirun host
  NodeTopology topology;                   // summary of the (expected) node topology
  std::vector<RankPlan> ranks;
};

BERT_JSON_DECLARE(nlohmann::ordered_json, RankPlan)
BERT_JSON_DECLARE(nlohmann::ordered_json, NodePlan)

}  // namespace bert::binding
