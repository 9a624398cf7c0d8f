// What `bind` needs from a harness plan.json: the calling rank's binding, found by node index and
// local rank (from the launcher's environment unless given explicitly).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "binding/binding.h"
#include "binding/plan_nodes.h"

namespace bert::binding {

struct RankIdentity {
  int node_index = -1;                // -1: not given by the launcher; resolved against the plan
  int local_rank = 0;
  std::string node_from;              // env variable the values came from (for messages)
  std::string local_from;
  int world_node = -1;                // OMPI_COMM_WORLD_RANK / OMPI_COMM_WORLD_LOCAL_SIZE when both are set
};

// The rank's row of plan.json (read with the Plan's own nodes' table, plan_nodes.h), its node's host
// name and how the node was found.
struct PlannedRank : RankPlan {
  std::string hostname;
  std::string node_from;              // how the node was found (env variable, hostname, default)
};

using EnvLookup = std::optional<std::string> (*)(const char* name);
std::optional<std::string> getenv_lookup(const char* name);

// Local rank from LOCAL_RANK, SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK; node from NODE_RANK or
// SLURM_NODEID. Explicit values (>= 0) win. Open MPI has no node-index variable (its
// OMPI_COMM_WORLD_NODE_RANK is a per-node process rank), so under mpirun the node is found in the plan.
// Throws UserError("bind", ...) when no local rank is known (unless `need_local` is false: local_rank -1)
// or a value is not a number.
RankIdentity rank_identity(int explicit_node, int explicit_local, EnvLookup env = getenv_lookup, bool need_local = true);

// Reads the plan file and returns nodes[node].ranks[local_rank], the node being who.node_index, else
// the plan node whose hostname is `this_host` (full or short name), else who.world_node, else 0.
// Throws UserError("plan", ...) naming the file and the missing/bad part.
PlannedRank read_planned_rank(const std::string& plan_path, const RankIdentity& who, const std::string& this_host = "");
// Every rank of that node (who.local_rank is not used), in the plan's order.
std::vector<PlannedRank> read_planned_node(const std::string& plan_path, const RankIdentity& who, const std::string& this_host = "");

// gethostname(), "" when unknown.
std::string this_hostname();

}  // namespace bert::binding
