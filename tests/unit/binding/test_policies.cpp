// Policies on synthetic topologies, where GPUs come from gpu_numa_map.
#include <doctest/doctest.h>

#include "fixtures.h"

using namespace bert::binding;
using namespace bert::binding::test;

namespace {

// 2 sockets x 4 cores x 2 PUs, Linux numbering: NUMA0 = 0-3,8-11; NUMA1 = 4-7,12-15.
NodeTopology small(const std::vector<int>& map = {0, 0, 1, 1}, const std::string& reserved = "",
                   const std::string& allowed = "") {
  TopologySource src;
  src.kind = TopologyKind::Synthetic;
  src.value = "pack:2 numa:1 core:4 pu:2(indexes=core:pack)";
  src.gpu_numa_map = map;
  src.reserved_cpus = reserved;
  src.allowed_cpus = allowed;
  return load_topology(src);
}

}  // namespace

TEST_CASE("synthetic topology: GPUs from gpu_numa_map, cores with SMT siblings") {
  NodeTopology t = small();
  CHECK(t.gpus.size() == 4);
  CHECK(t.gpus[2].numa_node == 1);
  CHECK(t.gpus[2].pci_busid.empty());
  CHECK(numa(t, 0).cpus == "0-3,8-11");
  CHECK(numa(t, 0).cores == std::vector<std::string>{"0,8", "1,9", "2,10", "3,11"});
  CHECK(t.this_system == false);
  CHECK(t.allowed_cpus == "0-15");
}

TEST_CASE("cpu policies") {
  NodeTopology t = small();
  CHECK(cpus_of(plan_node(t, policy(CpuPolicy::Exclusive), 4)) ==
        std::vector<std::string>{"0-1,8-9", "2-3,10-11", "4-5,12-13", "6-7,14-15"});
  CHECK(cpus_of(plan_node(t, policy(CpuPolicy::ExclusiveNoSmt), 4)) ==
        std::vector<std::string>{"0-1", "2-3", "4-5", "6-7"});
  CHECK(cpus_of(plan_node(t, policy(CpuPolicy::Node), 4)) ==
        std::vector<std::string>{"0-3,8-11", "0-3,8-11", "4-7,12-15", "4-7,12-15"});
  CHECK(cpus_of(plan_node(t, policy(CpuPolicy::Socket), 4))[3] == "4-7,12-15");
  auto none = plan_node(t, policy(CpuPolicy::None, MemPolicy::None), 4);
  CHECK(none[0].cpus.empty());
  CHECK(none[0].mems.empty());
  CHECK(none[0].gpu == 0);
}

TEST_CASE("exclusive splits by all GPUs local to the node, also when fewer ranks run") {
  // 2 ranks on GPUs 0,1 (both NUMA0): each gets the same half as in the 4-rank plan
  auto ranks = plan_node(small(), policy(CpuPolicy::Exclusive), 2);
  CHECK(cpus_of(ranks) == std::vector<std::string>{"0-1,8-9", "2-3,10-11"});
}

TEST_CASE("uneven split: whole cores, equal slices, leftovers unused") {
  auto ranks = plan_node(small({0, 0, 0, 1}), policy(CpuPolicy::Exclusive), 4);
  CHECK(cpus_of(ranks) == std::vector<std::string>{"0,8", "1,9", "2,10", "4-7,12-15"});
}

TEST_CASE("allowed set: override and reserved cpus narrow every policy") {
  NodeTopology t = small({0, 0, 1, 1}, "7,15", "0-13,15");
  CHECK(t.allowed_cpus == "0-6,8-13");
  auto ranks = plan_node(t, policy(CpuPolicy::Exclusive), 4);
  // NUMA1 keeps cores 4,5,6 (PU 14 is not allowed: core 6 keeps only PU 6) -> 1 core each
  CHECK(cpus_of(ranks) == std::vector<std::string>{"0-1,8-9", "2-3,10-11", "4,12", "5,13"});
  CHECK(plan_node(t, policy(CpuPolicy::Node), 4)[3].cpus == "4-6,12-13");
}

TEST_CASE("explicit cpu and memory maps") {
  NodeTopology t = small();
  BindingPolicy p = policy(CpuPolicy::Map, MemPolicy::Map);
  p.cpu_map = {"0", "1-2", "8,9", "15"};
  p.mem_map = {"0", "0", "0-1", "1"};
  auto ranks = plan_node(t, p, 4);
  CHECK(cpus_of(ranks) == std::vector<std::string>{"0", "1-2", "8-9", "15"});
  CHECK(ranks[2].mems == "0-1");

  p.mem_map = {"0", "0", "0", "2"};
  auto [field, msg] = binding_error([&] { plan_node(t, p, 4); });
  CHECK(field == "binding.mem_map");
  CHECK(msg == "local rank 3: <2> is invalid: node argument 2 is out of range (allowed: 0-1)");

  p.mem = MemPolicy::Node;
  p.cpu_map = {"0", "1", "2"};
  auto [f2, m2] = binding_error([&] { plan_node(t, p, 4); });
  CHECK(f2 == "binding.cpu_map");
  CHECK(m2 == "has 3 entries for 4 local ranks (one entry per local rank)");

  p.cpu_map = {"0", "1", "2", "x"};
  auto [f3, m3] = binding_error([&] { plan_node(t, p, 4); });
  CHECK(f3 == "binding.cpu_map[3]");
  CHECK(m3.find("'x' is not a non-negative number") != std::string::npos);
}

TEST_CASE("CPU-only ranks per NUMA node on an NPS4 machine") {
  TopologySource src;
  src.kind = TopologyKind::Synthetic;
  src.value = "pack:2 numa:4 l3:4 core:4 pu:2(indexes=core:pack)";
  NodeTopology t = load_topology(src);
  auto ranks = plan_node(t, policy(CpuPolicy::Node, MemPolicy::Node, RankUnit::Numa), 8);
  CHECK(ranks[3].cpus == "48-63,176-191");
  CHECK(ranks[3].mems == "3");
  auto sockets = plan_node(t, policy(CpuPolicy::Socket, MemPolicy::Node, RankUnit::Socket), 2);
  CHECK(sockets[1].cpus == "64-127,192-255");
  CHECK(sockets[1].mems == "4-7");
}
