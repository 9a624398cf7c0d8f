// Every user-caused topology/binding problem is one UserError naming the field.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <iterator>

#include "fixtures.h"

using namespace bert::binding;
using namespace bert::binding::test;

namespace {

TopologySource synthetic(const std::string& desc, const std::vector<int>& map = {}) {
  TopologySource src;
  src.kind = TopologyKind::Synthetic;
  src.value = desc;
  src.gpu_numa_map = map;
  return src;
}

const char* kSmall = "pack:2 numa:1 core:4 pu:2(indexes=core:pack)";

}  // namespace

TEST_CASE("XML that is not a topology") {
  std::string path = temp_path("not_topology.xml");
  std::ofstream(path) << "<?xml version=\"1.0\"?>\n<html><body>hello</body></html>\n";
  auto [field, msg] = binding_error([&] { load_xml(path); });
  std::remove(path.c_str());
  CHECK(field == "topology.xml");
  CHECK(msg == "topology file '" + path + "' is not a valid hwloc topology (hwloc could not load it)");

  std::string garbage = temp_path("garbage.xml");
  std::ofstream(garbage) << "this is not xml at all";
  auto [gfield, gmsg] = binding_error([&] { load_xml(garbage); });
  std::remove(garbage.c_str());
  CHECK(gfield == "topology.xml");
  CHECK(gmsg.find("topology file '" + garbage + "' is not a valid hwloc topology") == 0);
}

TEST_CASE("XML written by hwloc 3 is refused with the reason") {
  std::ifstream in(shipped("h100_1gpu_16c.xml"));
  std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string v2 = "<topology version=\"2.0\">";
  REQUIRE(xml.find(v2) != std::string::npos);
  xml.replace(xml.find(v2), v2.size(), "<topology version=\"3.0\">");
  std::string path = temp_path("hwloc3.xml");
  std::ofstream(path) << xml;
  auto [field, msg] = binding_error([&] { load_xml(path); });
  std::remove(path.c_str());
  CHECK(field == "topology.xml");
  CHECK(msg.find("is not a valid hwloc topology (hwloc could not load it); it was written by hwloc 3.x") != std::string::npos);
}

TEST_CASE("missing topology file") {
  auto [field, msg] = binding_error([&] { load_xml("/nonexistent/dgx.xml"); });
  CHECK(field == "topology.xml");
  CHECK(msg == "cannot read topology file '/nonexistent/dgx.xml': No such file or directory");
}

TEST_CASE("bad synthetic string") {
  for (const char* bad : {"pack:2 numa:banana", "", "core:0"}) {
    INFO(bad);
    auto [field, msg] = binding_error([&] { load_topology(synthetic(bad)); });
    CHECK(field == "topology.synthetic");
    CHECK(msg.find("is not a valid hwloc synthetic description") != std::string::npos);
  }
}

TEST_CASE("GPU map longer than the GPUs found") {
  auto [field, msg] = binding_error([&] { load_xml(fixture("mpibind-cts1-pascal.xml"), "", {0, 0, 0}); });
  CHECK(field == "topology.gpu_numa_map");
  CHECK(msg.find("has 3 entries but") != std::string::npos);
  CHECK(msg.find("has only 2 GPUs") != std::string::npos);
}

TEST_CASE("GPU map contradicting PCI locality, or naming a NUMA node that does not exist") {
  auto [field, msg] = binding_error([&] { load_xml(shipped("dgxa100.xml"), "", {0, 1, 2, 3, 4, 5, 6, 7}); });
  CHECK(field == "topology.gpu_numa_map");
  CHECK(msg.find("says GPU 0 is on NUMA node 0, but its PCI device 0000:07:00.0 is local to NUMA node 3") == 0);
  // a map that agrees is accepted
  CHECK(load_xml(shipped("dgxa100.xml"), "", {3, 3, 1, 1}).gpus.size() == 8);
  auto [f2, m2] = binding_error([&] { load_topology(synthetic(kSmall, {0, 5})); });
  CHECK(f2 == "topology.gpu_numa_map");
  CHECK(m2.find("entry 1 names NUMA node 5") == 0);
}

TEST_CASE("reserved cpus outside the machine, or bad list syntax") {
  auto [field, msg] = binding_error([&] { load_xml(shipped("p8000h100.xml"), "84-95,180-199"); });
  CHECK(field == "topology.reserved_cpus");
  CHECK(msg.find("CPU 192 is not in the machine") == 0);
  CHECK(msg.find("has PUs 0-191") != std::string::npos);
  auto [f2, m2] = binding_error([&] { load_xml(shipped("p8000h100.xml"), "84-95;180-191"); });
  CHECK(f2 == "topology.reserved_cpus");
  CHECK(m2.find("unparseable list '84-95;180-191'") == 0);
  TopologySource all = synthetic(kSmall);
  all.reserved_cpus = "0-15";
  CHECK(binding_error([&] { load_topology(all); }).second.find("no CPU of") == 0);
}

TEST_CASE("more ranks than cores") {
  NodeTopology t = load_topology(synthetic("pack:1 numa:1 core:2 pu:2", {0, 0, 0, 0}));
  auto [field, msg] = binding_error([&] { plan_node(t, policy(CpuPolicy::Exclusive), 3); });
  CHECK(field == "binding.cpu");
  CHECK(msg.find("local rank 2 has no core of its own: 3 local ranks but only 2 allowed cores") == 0);
  auto [f2, m2] = binding_error([&] { plan_node(t, policy(CpuPolicy::Node), 5); });
  CHECK(f2 == "binding.unit");
  CHECK(m2.find("5 local ranks requested but") == 0);
}

TEST_CASE("an exclusive split that leaves a rank empty, and a rank left with no CPU") {
  // 5 GPUs on NUMA0 (4 cores): there is no whole core for each
  NodeTopology t = load_topology(synthetic(kSmall, {0, 0, 0, 0, 0, 1}));
  auto [field, msg] = binding_error([&] { plan_node(t, policy(CpuPolicy::Exclusive), 6); });
  CHECK(field == "binding.cpu");
  CHECK(msg.find("local rank 0 (GPU 0): NUMA node 0 has 4 allowed cores for 5 local GPUs") == 0);

  // all of NUMA1 reserved: the rank on GPU 2 (NUMA1) has nothing left
  TopologySource src = synthetic(kSmall, {0, 0, 1});
  src.reserved_cpus = "4-7,12-15";
  NodeTopology r = load_topology(src);
  auto [f2, m2] = binding_error([&] { plan_node(r, policy(CpuPolicy::Node), 3); });
  CHECK(f2 == "binding.cpu");
  CHECK(m2 == "local rank 2 (GPU 2) is left with no CPU: none of NUMA node 1's CPUs is in the allowed set 0-3,8-11");
  auto [f3, m3] = binding_error([&] { plan_node(r, policy(CpuPolicy::Exclusive), 3); });
  CHECK(f3 == "binding.cpu");
  CHECK(m3.find("local rank 2 (GPU 2): NUMA node 1 has 0 allowed cores for 1 local GPU") == 0);
}

TEST_CASE("zero ranks") {
  NodeTopology t = load_topology(synthetic(kSmall, {0}));
  CHECK(binding_error([&] { plan_node(t, policy(CpuPolicy::Exclusive), 0); }).first == "binding.ranks_per_node");
}
