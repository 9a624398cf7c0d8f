// What `bind` needs from a harness plan.json: the calling rank's binding, found by node index and
// local rank (from the launcher's environment unless given explicitly).
#pragma once
#include <map>
#include <optional>
#include <string>

#include "binding/binding.h"

namespace bert::binding {

struct RankIdentity {
  int node_index = 0;
  int local_rank = 0;
  std::string node_from = "default";  // env variable the values came from (for messages)
  std::string local_from;
};

struct PlannedRank {
  std::string hostname;
  int node_index = 0;
  int global_rank = 0;
  RankBinding binding;
  std::map<std::string, std::string> env;
};

using EnvLookup = std::optional<std::string> (*)(const char* name);
std::optional<std::string> getenv_lookup(const char* name);

// Local rank from LOCAL_RANK, SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK; node from NODE_RANK,
// SLURM_NODEID, OMPI_COMM_WORLD_NODE_RANK, else 0. Explicit values (>= 0) win.
// Throws BindingError("bind", ...) when no local rank is known or a value is not a number.
RankIdentity rank_identity(int explicit_node, int explicit_local, EnvLookup env = getenv_lookup);

// Reads the plan file and returns nodes[node_index].ranks[local_rank]. Throws BindingError("plan", ...)
// naming the file and the missing/bad part.
PlannedRank read_planned_rank(const std::string& plan_path, const RankIdentity& who);

}  // namespace bert::binding
