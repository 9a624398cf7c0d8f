// The live topology of the machine running the tests.
#include <doctest/doctest.h>

#include "binding/allowed_cpus.h"
#include "fixtures.h"

using namespace bert::binding;
using namespace bert::binding::test;

TEST_CASE("live topology: this system, allowed set = the process affinity") {
  NodeTopology t = load_topology(TopologySource{});
  CHECK(t.source == "live");
  CHECK(t.this_system);
  CHECK(t.pus >= 1);
  CHECK(!t.numa.empty());
  CHECK(t.allowed_cpus == format_list(process_allowed_cpus()));
  // one rank per NUMA node with CPUs, node policy: exactly the allowed CPUs of that node
  auto ranks = plan_node(t, policy(CpuPolicy::Node, MemPolicy::Node, RankUnit::Numa), 1);
  IndexList node_cpus = parse_list(t.numa.front().cpus, "t");
  for (const auto& n : t.numa)
    if (!n.cpus.empty()) {
      node_cpus = parse_list(n.cpus, "t");
      break;
    }
  CHECK(ranks[0].cpus == format_list(list_intersect(node_cpus, parse_list(t.allowed_cpus, "t"))));
}

TEST_CASE("live topology: reserved CPUs are removed from the allowed set") {
  IndexList affinity = process_allowed_cpus();
  TopologySource src;
  src.reserved_cpus = std::to_string(affinity.front());
  if (affinity.size() == 1) {
    CHECK(binding_error([&] { load_topology(src); }).first == "topology.reserved_cpus");
  } else {
    NodeTopology t = load_topology(src);
    CHECK(t.allowed_cpus == format_list(IndexList(affinity.begin() + 1, affinity.end())));
  }
}
