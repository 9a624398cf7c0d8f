// Synthetic topologies number SMT siblings the way Linux does on Intel and AMD servers (and the real lstopo
// exports of such nodes show): sibling of core c = c + number of cores, not the next PU.
#include <doctest/doctest.h>

#include "binding/linux_pu_numbering.h"
#include "fixtures.h"

using namespace bert::binding;
using namespace bert::binding::test;

TEST_CASE("real 2-socket SMT nodes: the sibling of core c is PU c + total cores") {
  for (const char* name : {"mpibind-g4dnmetal.xml", "mpibind-epyc-corona-p2.xml"}) {
    INFO(name);
    NodeTopology t = load_xml(fixture(name));
    CHECK(t.packages == 2);
    CHECK(t.cores == 48);
    CHECK(t.pus == 96);
    check_linux_smt(t);
    CHECK(numa(t, 0).cpus == "0-23,48-71");
    CHECK(numa(t, 1).cpus == "24-47,72-95");
  }
}

TEST_CASE("a synthetic description of a real node gives the node's NUMA nodes and cores") {
  NodeTopology real = load_xml(fixture("mpibind-epyc-corona-p2.xml"));
  NodeTopology synth = load_synthetic("pack:2 numa:1 core:24 pu:2");
  REQUIRE(synth.numa.size() == real.numa.size());
  for (size_t i = 0; i < real.numa.size(); ++i) {
    CHECK(synth.numa[i].cpus == real.numa[i].cpus);
    CHECK(synth.numa[i].cores == real.numa[i].cores);
  }
  CHECK(synth.numa[0].cores.front() == "0,48");
}

TEST_CASE("Baidu (2x 32 cores, GPUs 0-3 on socket 0): exclusive keeps every rank on its GPU's socket") {
  NodeTopology t = load_synthetic("pack:2 numa:1 core:32 pu:2", {0, 0, 0, 0, 1, 1, 1, 1});
  check_linux_smt(t);
  auto ranks = plan_node(t, policy(CpuPolicy::Exclusive), 8);
  CHECK(cpus_of(ranks) == std::vector<std::string>{"0-7,64-71", "8-15,72-79", "16-23,80-87", "24-31,88-95",
                                                   "32-39,96-103", "40-47,104-111", "48-55,112-119", "56-63,120-127"});
  for (const auto& r : ranks) {
    INFO("local rank " << r.local_rank);
    CHECK(first_outside(parse_list(r.cpus, "cpus"), parse_list(numa(t, r.numa_node).cpus, "numa")) == -1);
  }
}

TEST_CASE("PU numbering is left alone without SMT, with the user's own indexes, or when hwloc refuses the string") {
  CHECK(with_linux_pu_numbering("pack:2 numa:1 core:4 pu:1") == "pack:2 numa:1 core:4 pu:1");
  CHECK(with_linux_pu_numbering("pack:2 core:2 pu:2(indexes=0,1,2,3,4,5,6,7)") == "pack:2 core:2 pu:2(indexes=0,1,2,3,4,5,6,7)");
  CHECK(with_linux_pu_numbering("pack:2 numa:banana") == "pack:2 numa:banana");
  CHECK(with_linux_pu_numbering("pack:2 numa:1 core:2 pu:2 ") == "pack:2 numa:1 core:2 pu:2(indexes=0,4,1,5,2,6,3,7)");
  NodeTopology adjacent = load_synthetic("pack:1 numa:1 core:2 pu:2(indexes=0,1,2,3)");
  CHECK(adjacent.numa[0].cores == std::vector<std::string>{"0-1", "2-3"});
  NodeTopology four_way = load_synthetic("pack:1 numa:1 core:2 pu:4");
  CHECK(four_way.numa[0].cores == std::vector<std::string>{"0,2,4,6", "1,3,5,7"});
}
