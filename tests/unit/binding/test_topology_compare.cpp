// compare_topologies: the check the preflight runs on every node (expected = the plan's node topology).
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>

#include "binding/binding_json.h"
#include "binding/topology_compare.h"
#include "fixtures.h"

using namespace bert::binding;
using namespace bert::binding::test;

namespace {

const char* kRealXmls[] = {"hwloc-nvidiaDGX2.xml", "mpibind-g4dnmetal.xml", "mpibind-cts1-pascal.xml",
                           "mpibind-epyc-corona-p2.xml"};

// "pack:1 numa:1 core:4 pu:2" with hwloc's own numbering (core 0 = PUs 0,1), as the harness used to plan.
std::string adjacent(const std::string& levels, int pus) {
  std::string idx;
  for (int i = 0; i < pus; ++i) idx += std::to_string(i) + (i + 1 < pus ? "," : "");
  return levels + " pu:2(indexes=" + idx + ")";
}

}  // namespace

TEST_CASE("the same machine matches: every real XML against itself, and against its JSON copy") {
  for (const char* name : kRealXmls) {
    INFO(name);
    NodeTopology t = load_xml(fixture(name));
    TopologyComparison c = compare_topologies(t, load_xml(fixture(name)));
    CHECK(c.matches());
    CHECK(c.differences.empty());
    CHECK(compare_topologies(ojson(t).get<NodeTopology>(), t).matches());
  }
}

TEST_CASE("a different machine: every difference named, both sides described") {
  // g4dn.metal and the Corona node have the same CPU side (2x 24 cores, siblings at +48, 2 NUMA nodes):
  // only the GPUs and the NICs tell them apart
  NodeTopology g4dn = load_xml(fixture("mpibind-g4dnmetal.xml"));
  NodeTopology corona = load_xml(fixture("mpibind-epyc-corona-p2.xml"));
  TopologyComparison c = compare_topologies(g4dn, corona);
  CHECK_FALSE(c.matches());
  REQUIRE(c.differences.size() == 18);  // 8 expected GPUs missing, 8 unexpected ones, an EFA for an mlx5
  CHECK(c.differences[16] == "NIC rdmap197s0 (0000:c5:00.0): expected on NUMA node 1, not on this node");
  CHECK(c.differences[17] == "NIC mlx5_0 (0000:c4:00.0): on this node (NUMA node 1), not expected");
  CHECK(c.differences[0] == "GPU " + g4dn.gpus[0].pci_busid + ": expected on NUMA node 0, not on this node");
  CHECK(c.differences[8] == "GPU 0000:03:00.0: on this node (NUMA node 0), not expected");
  std::string m = c.message();
  CHECK(m.rfind("this node does not match the expected topology (" + fixture("mpibind-g4dnmetal.xml") + "):\n  GPU ", 0) == 0);
  CHECK(m.find("\n  expected:  " + fixture("mpibind-g4dnmetal.xml") + ": 2 packages, 48 cores, 96 PUs; NUMA 0: 0-23,48-71; "
               "NUMA 1: 24-47,72-95; 8 GPUs: " + g4dn.gpus[0].pci_busid + " on NUMA 0") != std::string::npos);
  CHECK(m.find("\n  this node: " + fixture("mpibind-epyc-corona-p2.xml") + ": 2 packages, 48 cores, 96 PUs; NUMA 0: "
               "0-23,48-71; NUMA 1: 24-47,72-95; 8 GPUs: 0000:03:00.0 on NUMA 0, 0000:27:00.0 on NUMA 0") != std::string::npos);
  CHECK(m.find("; not counted as GPUs: 1 x [1a03:2000] class 0300 (0000:65:00.0)") != std::string::npos);

  // DGX-2 (4 allowed PUs of 2 Xeon 8174) against the 2-GPU Pascal node: counts differ
  TopologyComparison d = compare_topologies(load_xml(fixture("hwloc-nvidiaDGX2.xml")), load_xml(fixture("mpibind-cts1-pascal.xml")));
  REQUIRE(d.differences.size() >= 3);
  CHECK(d.differences[0] == "cores: expected 4, this node has 36");
  CHECK(d.differences[1] == "PUs: expected 4, this node has 72");
  CHECK(d.differences[2] == "NUMA node 0 CPUs: expected 0-1, this node 0-17,36-53");
  bool gpus = false;
  for (const auto& diff : d.differences)
    gpus = gpus || diff == "GPUs: expected 16, this node has 2; not counted as GPUs: 1 x [1a03:2000] class 0300 "
                           "(0000:0b:00.0): PCI vendor 1a03 is not a GPU vendor";
  CHECK(gpus);
}

TEST_CASE("a plan made with hwloc's adjacent SMT numbering does not match a Linux node") {
  // two sockets: the NUMA nodes' CPUs differ
  NodeTopology old_plan = load_synthetic(adjacent("pack:2 numa:1 core:32", 128));
  NodeTopology node = load_synthetic("pack:2 numa:1 core:32 pu:2");
  TopologyComparison c = compare_topologies(old_plan, node);
  REQUIRE(c.differences.size() == 2);
  CHECK(c.differences[0] == "NUMA node 0 CPUs: expected 0-63, this node 0-31,64-95");
  CHECK(c.differences[1] == "NUMA node 1 CPUs: expected 64-127, this node 32-63,96-127");
  // one socket: same CPUs, different pairs of siblings
  TopologyComparison one = compare_topologies(load_synthetic(adjacent("pack:1 numa:1 core:4", 8)),
                                              load_synthetic("pack:1 numa:1 core:4 pu:2"));
  REQUIRE(one.differences.size() == 1);
  CHECK(one.differences[0] == "NUMA node 0, its core 0: expected PUs 0-1, this node 0,4 (SMT siblings are numbered differently)");
}

TEST_CASE("GPUs from gpu_numa_map are compared by position with the node's GPUs in bus order") {
  NodeTopology corona = load_xml(fixture("mpibind-epyc-corona-p2.xml"));
  CHECK(compare_topologies(load_synthetic("pack:2 numa:1 core:24 pu:2", {0, 0, 0, 0, 1, 1, 1, 1}), corona).matches());
  TopologyComparison c = compare_topologies(load_synthetic("pack:2 numa:1 core:24 pu:2", {0, 0, 0, 1, 1, 1, 1, 1}), corona);
  REQUIRE(c.differences.size() == 1);
  CHECK(c.differences[0] == "GPU 3: expected on NUMA node 1 (topology.gpu_numa_map), this node's GPU 3 (0000:63:00.0) is on NUMA node 0");
  // a node where the AMD GPUs were not counted would say what it skipped
  TopologyComparison fewer = compare_topologies(corona, load_xml(fixture("handmade-gpu-vendors.xml")));
  bool said = false;
  for (const auto& d : fewer.differences)
    said = said || d.rfind("GPUs: expected 8, this node has 2; not counted as GPUs: 1 x [8086:4680]", 0) == 0;
  CHECK(said);
}

TEST_CASE("the expected topology from a file: XML, bind --show-topology JSON, or an error naming the file") {
  NodeTopology xml = load_expected_topology(fixture("mpibind-epyc-corona-p2.xml"));
  CHECK(xml.gpus.size() == 8);
  std::string path = temp_path("expected.json");
  std::ofstream(path) << ojson(xml).dump(2);
  CHECK(compare_topologies(load_expected_topology(path), xml).matches());
  std::ofstream(path) << "{\"source\": \"x\"}";
  auto [field, msg] = binding_error([&] { load_expected_topology(path); });
  CHECK(field == "bind");
  CHECK(msg.rfind(path + ": not an hwloc XML (*.xml) or the JSON of `bind --show-topology`: ", 0) == 0);
  std::remove(path.c_str());
  auto [f2, m2] = binding_error([&] { load_expected_topology("/nonexistent/node.xml"); });
  CHECK(f2 == "bind");
  CHECK(m2 == "cannot read topology file '/nonexistent/node.xml': No such file or directory");
}
