// How `bind` finds its rank: environment order and plan.json lookup errors.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <map>

#include "binding/bind_plan.h"
#include "fixtures.h"

using namespace bert::binding;
using namespace bert::binding::test;

namespace {

std::map<std::string, std::string> g_env;
std::optional<std::string> fake_env(const char* name) {
  auto it = g_env.find(name);
  if (it == g_env.end()) return std::nullopt;
  return it->second;
}

const char* kPlan = R"({"nodes": [
  {"hostname": "n0", "ranks": [
    {"global_rank": 0, "node_index": 0, "local_rank": 0, "binding": {"local_rank": 0, "gpu": 0, "gpu_busid": "0000:07:00.0", "numa_node": 3, "cpus": "48-55,176-183", "mems": "3"}, "env": {"RANK": "0"}},
    {"global_rank": 1, "node_index": 0, "local_rank": 1, "binding": {"local_rank": 1, "gpu": 1, "gpu_busid": "0000:0f:00.0", "numa_node": 3, "cpus": "56-63,184-191", "mems": "3"}, "env": {"RANK": "1"}}]},
  {"hostname": "n1", "ranks": [
    {"global_rank": 2, "node_index": 1, "local_rank": 0, "binding": {"local_rank": 0, "gpu": 0, "gpu_busid": "", "numa_node": 0, "cpus": "0", "mems": ""}}]}
]})";

std::string write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("local rank and node come from the launcher environment in bindpcie's order") {
  g_env = {{"SLURM_LOCALID", "3"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "5"}, {"SLURM_NODEID", "2"}};
  RankIdentity who = rank_identity(-1, -1, fake_env);
  CHECK(who.local_rank == 3);
  CHECK(who.local_from == "SLURM_LOCALID");
  CHECK(who.node_index == 2);
  CHECK(who.node_from == "SLURM_NODEID");
  g_env.emplace("LOCAL_RANK", "1");
  g_env.emplace("NODE_RANK", "0");
  who = rank_identity(-1, -1, fake_env);
  CHECK(who.local_rank == 1);
  CHECK(who.node_index == 0);
  CHECK(rank_identity(4, 6, fake_env).local_rank == 6);
  CHECK(rank_identity(4, 6, fake_env).node_index == 4);

  // Open MPI: OMPI_COMM_WORLD_NODE_RANK is a per-node process rank, not a node index
  g_env = {{"OMPI_COMM_WORLD_LOCAL_RANK", "7"}, {"OMPI_COMM_WORLD_NODE_RANK", "7"},
           {"OMPI_COMM_WORLD_RANK", "15"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "8"}};
  who = rank_identity(-1, -1, fake_env);
  CHECK(who.local_rank == 7);
  CHECK(who.node_index == -1);
  CHECK(who.world_node == 1);

  g_env = {};
  auto [f, m] = binding_error([] { rank_identity(-1, -1, fake_env); });
  CHECK(f == "bind");
  CHECK(m.find("cannot tell the local rank") == 0);
  g_env = {{"LOCAL_RANK", "two"}};
  CHECK(binding_error([] { rank_identity(-1, -1, fake_env); }).second ==
        "LOCAL_RANK='two' is not a non-negative integer");
}

TEST_CASE("without a node variable the node is found by hostname, then by Open MPI's layout, else 0") {
  std::string plan = write(temp_path("plan_hosts.json"), kPlan);
  RankIdentity who;
  who.local_rank = 0;
  who.local_from = "OMPI_COMM_WORLD_LOCAL_RANK";
  PlannedRank by_host = read_planned_rank(plan, who, "n1.cluster.example");
  CHECK(by_host.node_index == 1);
  CHECK(by_host.node_from == "hostname n1.cluster.example");
  CHECK(by_host.global_rank == 2);
  who.world_node = 1;
  PlannedRank by_layout = read_planned_rank(plan, who, "elsewhere");
  CHECK(by_layout.node_index == 1);
  CHECK(by_layout.node_from == "OMPI_COMM_WORLD_RANK / OMPI_COMM_WORLD_LOCAL_SIZE");
  who.world_node = -1;
  PlannedRank fallback = read_planned_rank(plan, who, "elsewhere");
  CHECK(fallback.node_index == 0);
  CHECK(fallback.node_from == "default");
  // an explicit node index wins over the hostname
  who.node_index = 0;
  who.node_from = "SLURM_NODEID";
  CHECK(read_planned_rank(plan, who, "n1").node_index == 0);
  std::remove(plan.c_str());
}

TEST_CASE("reading a rank from plan.json") {
  std::string plan = write(temp_path("plan.json"), kPlan);
  PlannedRank r = read_planned_rank(plan, RankIdentity{0, 1, "NODE_RANK", "LOCAL_RANK", -1});
  CHECK(r.hostname == "n0");
  CHECK(r.global_rank == 1);
  CHECK(r.binding.cpus == "56-63,184-191");
  CHECK(r.env.at("RANK") == "1");
  PlannedRank r2 = read_planned_rank(plan, RankIdentity{1, 0, "SLURM_NODEID", "SLURM_LOCALID", -1});
  CHECK(r2.global_rank == 2);
  CHECK(r2.env.empty());

  auto [f, m] = binding_error([&] { read_planned_rank(plan, RankIdentity{0, 5, "NODE_RANK", "LOCAL_RANK", -1}); });
  CHECK(f == "plan");
  CHECK(m == plan + ": nodes[0].ranks has no local rank 5 (from LOCAL_RANK)");
  CHECK(binding_error([&] { read_planned_rank(plan, RankIdentity{2, 0, "SLURM_NODEID", "x", -1}); }).second ==
        plan + ": node index 2 (from SLURM_NODEID) but the plan has 2 node(s)");
  std::remove(plan.c_str());

  std::string bad = write(temp_path("bad_plan.json"), R"({"nodes": [{"ranks": [{"local_rank": 0, "global_rank": 0, "binding": {"cpus": "1"}}]}]})");
  auto [bf, bm] = binding_error([&] { read_planned_rank(bad, RankIdentity{}); });
  CHECK(bf == "plan");
  CHECK(bm.find(bad + ": nodes[0].ranks[local_rank=0]:") == 0);
  CHECK(bm.find("local_rank") != std::string::npos);
  write(bad, "{not json");
  CHECK(binding_error([&] { read_planned_rank(bad, RankIdentity{}); }).second.find("not valid JSON") != std::string::npos);
  std::remove(bad.c_str());
  CHECK(binding_error([&] { read_planned_rank("/nonexistent/plan.json", RankIdentity{}); }).second ==
        "/nonexistent/plan.json: cannot open the plan file");
}
