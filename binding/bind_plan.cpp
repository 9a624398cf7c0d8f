#include "binding/bind_plan.h"

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <fstream>

#include "binding/binding_json.h"

namespace bert::binding {
namespace {

int parse_index(const std::string& name, const std::string& value) {
  size_t used = 0;
  int v = -1;
  try {
    v = std::stoi(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || value.empty() || v < 0)
    throw UserError("bind", name + "='" + value + "' is not a non-negative integer");
  return v;
}

// First variable of `names` that is set: (name, value).
std::optional<std::pair<std::string, int>> first_set(std::initializer_list<const char*> names, EnvLookup env) {
  for (const char* n : names)
    if (auto v = env(n)) return std::make_pair(std::string(n), parse_index(n, *v));
  return std::nullopt;
}

std::string short_name(const std::string& host) { return host.substr(0, host.find('.')); }

// Which plan node this process is on when the launcher did not say: hostname, then Open MPI's
// by-slot layout, then the only/first node.
void resolve_node(const ojson& nodes, RankIdentity& who, const std::string& this_host) {
  if (who.node_index >= 0) return;
  if (!this_host.empty())
    for (size_t i = 0; i < nodes.size(); ++i) {
      std::string h = nodes[i].value("hostname", "");
      if (h == this_host || (!h.empty() && short_name(h) == short_name(this_host))) {
        who.node_index = static_cast<int>(i);
        who.node_from = "hostname " + this_host;
        return;
      }
    }
  if (who.world_node >= 0) {
    who.node_index = who.world_node;
    who.node_from = "OMPI_COMM_WORLD_RANK / OMPI_COMM_WORLD_LOCAL_SIZE";
    return;
  }
  who.node_index = 0;
  who.node_from = "default";
}

}  // namespace

std::string this_hostname() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

std::optional<std::string> getenv_lookup(const char* name) {
  const char* v = std::getenv(name);
  if (!v) return std::nullopt;
  return std::string(v);
}

RankIdentity rank_identity(int explicit_node, int explicit_local, EnvLookup env, bool need_local) {
  RankIdentity who;
  if (explicit_local >= 0) {
    who.local_rank = explicit_local;
    who.local_from = "--local-rank";
  } else if (auto v = first_set({"LOCAL_RANK", "SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK"}, env)) {
    who.local_from = v->first;
    who.local_rank = v->second;
  } else if (!need_local) {
    who.local_rank = -1;
  } else {
    throw UserError("bind", "cannot tell the local rank: none of LOCAL_RANK, SLURM_LOCALID, "
                               "OMPI_COMM_WORLD_LOCAL_RANK is set (or pass --local-rank)");
  }
  if (explicit_node >= 0) {
    who.node_index = explicit_node;
    who.node_from = "--node";
  } else if (auto v = first_set({"NODE_RANK", "SLURM_NODEID"}, env)) {
    who.node_from = v->first;
    who.node_index = v->second;
  }
  auto world_rank = first_set({"OMPI_COMM_WORLD_RANK"}, env);
  auto local_size = first_set({"OMPI_COMM_WORLD_LOCAL_SIZE"}, env);
  if (world_rank && local_size && local_size->second > 0) who.world_node = world_rank->second / local_size->second;
  return who;
}

std::vector<PlannedRank> read_planned_node(const std::string& plan_path, const RankIdentity& given, const std::string& this_host) {
  std::ifstream in(plan_path);
  if (!in) throw UserError("plan", plan_path + ": cannot open the plan file");
  ojson plan;
  try {
    plan = ojson::parse(in);
  } catch (const ojson::exception& e) {
    throw UserError("plan", plan_path + ": not valid JSON: " + e.what());
  }
  std::string at = "nodes";
  try {
    const ojson& nodes = plan.at("nodes");
    if (!nodes.is_array()) throw UserError("plan", plan_path + ": \"nodes\" is not a list");
    RankIdentity who = given;
    resolve_node(nodes, who, this_host);
    if (static_cast<size_t>(who.node_index) >= nodes.size())
      throw UserError("plan", plan_path + ": node index " + std::to_string(who.node_index) + " (from " +
                                     who.node_from + ") but the plan has " +
                                     std::to_string(nodes.size()) + " node(s)");
    at = "nodes[" + std::to_string(who.node_index) + "]";
    const ojson& node = nodes[static_cast<size_t>(who.node_index)];
    std::vector<PlannedRank> out;
    at += ".ranks";
    const std::string ranks_at = at;
    for (const ojson& r : node.at("ranks")) {
      at = ranks_at + "[local_rank=" + std::to_string(r.at("local_rank").get<int>()) + "]";
      PlannedRank p;
      static_cast<RankPlan&>(p) = r.get<RankPlan>();
      p.binding.local_rank = p.local_rank;
      p.node_index = who.node_index;
      p.node_from = who.node_from;
      p.hostname = node.value("hostname", "");
      out.push_back(std::move(p));
    }
    return out;
  } catch (const ojson::exception& e) {
    throw UserError("plan", plan_path + ": " + at + ": " + e.what());
  }
}

PlannedRank read_planned_rank(const std::string& plan_path, const RankIdentity& who, const std::string& this_host) {
  const std::vector<PlannedRank> ranks = read_planned_node(plan_path, who, this_host);
  for (const PlannedRank& r : ranks)
    if (r.binding.local_rank == who.local_rank) return r;
  const std::string node = ranks.empty() ? "nodes[?]" : "nodes[" + std::to_string(ranks.front().node_index) + "]";
  throw UserError("plan", plan_path + ": " + node + ".ranks has no local rank " + std::to_string(who.local_rank) + " (from " +
                              who.local_from + ")");
}

}  // namespace bert::binding
