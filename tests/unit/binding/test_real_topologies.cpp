// Real lstopo exports of GPU servers (tests/fixtures/binding, see its README.md).
#include <doctest/doctest.h>

#include <algorithm>

#include "fixtures.h"

using namespace bert::binding;
using namespace bert::binding::test;


TEST_CASE("DGX-2: 16 V100 found through nvml COPROC osdevs, NVSwitches are not GPUs") {
  NodeTopology t = load_xml(fixture("hwloc-nvidiaDGX2.xml"));
  CHECK(nvidia_pci_devices(fixture("hwloc-nvidiaDGX2.xml")) == 27);  // 16 V100 + 11 NVSwitches (class 0680)
  REQUIRE(t.gpus.size() == 16);
  CHECK(gpu_numas(t) == std::vector<int>{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1});
  for (size_t i = 0; i < t.gpus.size(); ++i) {
    CHECK(t.gpus[i].index == static_cast<int>(i));
    CHECK(t.gpus[i].vendor == "NVIDIA");
    CHECK(t.gpus[i].osdevs == std::vector<std::string>{"nvml" + std::to_string(i)});
  }
  CHECK(t.gpus[0].pci_busid == "0000:34:00.0");
  // bus order
  CHECK(std::is_sorted(t.gpus.begin(), t.gpus.end(),
                       [](const Gpu& a, const Gpu& b) { return a.pci_busid < b.pci_busid; }));
  CHECK(t.pus == 4);
  CHECK(numa(t, 0).cpus == "0-1");
  CHECK(numa(t, 1).cpus == "24-25");
  CHECK(t.allowed_cpus == "0-1,24-25");
}

TEST_CASE("DGX-2: exclusive with 8 ranks per NUMA node is an error naming the rank") {
  NodeTopology t = load_xml(fixture("hwloc-nvidiaDGX2.xml"));
  // 16 ranks > 4 cores: caught up front
  auto [field, msg] = binding_error([&] { plan_node(t, policy(CpuPolicy::Exclusive), 16); });
  CHECK(field == "binding.cpu");
  CHECK(msg.find("local rank 4 has no core of its own: 16 local ranks but only 4 allowed cores") == 0);
  // 3 ranks fit the core count, but NUMA node 0 has 8 local GPUs for 2 cores
  auto [field3, msg3] = binding_error([&] { plan_node(t, policy(CpuPolicy::Exclusive), 3); });
  CHECK(field3 == "binding.cpu");
  CHECK(msg3 == "local rank 0 (GPU 0): NUMA node 0 has 2 allowed cores for 8 local GPUs; exclusive needs at "
                "least one core per rank (use binding.cpu: node)");
  // node policy is fine: all 16 ranks share their NUMA node's PUs
  auto ranks = plan_node(t, policy(CpuPolicy::Node), 16);
  CHECK(ranks[0].cpus == "0-1");
  CHECK(ranks[7].cpus == "0-1");
  CHECK(ranks[8].cpus == "24-25");
  CHECK(ranks[15].mems == "1");
}

TEST_CASE("g4dn.metal: 8 T4 (not 24 osdevs), each with cuda/opencl/nvml names, cuda0-3 on NUMA0") {
  NodeTopology t = load_xml(fixture("mpibind-g4dnmetal.xml"));
  REQUIRE(t.gpus.size() == 8);
  CHECK(gpu_numas(t) == std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1});
  for (const auto& g : t.gpus) {
    CHECK(g.osdevs.size() == 3);
    auto has = [&](const std::string& prefix) {
      return std::any_of(g.osdevs.begin(), g.osdevs.end(), [&](const std::string& n) { return n.rfind(prefix, 0) == 0; });
    };
    CHECK(has("cuda"));
    CHECK(has("opencl0d"));
    CHECK(has("nvml"));
  }
  CHECK(numa(t, 0).cpus == "0-23,48-71");
  auto ranks = plan_node(t, policy(CpuPolicy::Exclusive), 8);
  // 24 cores per NUMA node / 4 local GPUs = 6 cores + SMT siblings at +48
  CHECK(cpus_of(ranks) == std::vector<std::string>{"0-5,48-53", "6-11,54-59", "12-17,60-65", "18-23,66-71",
                                                   "24-29,72-77", "30-35,78-83", "36-41,84-89", "42-47,90-95"});
}

TEST_CASE("cts1-pascal: both P100 on NUMA0, nothing on NUMA1") {
  NodeTopology t = load_xml(fixture("mpibind-cts1-pascal.xml"));
  REQUIRE(t.gpus.size() == 2);
  CHECK(gpu_numas(t) == std::vector<int>{0, 0});
  auto ranks = plan_node(t, policy(CpuPolicy::Exclusive), 2);
  const IndexList node0 = parse_list(numa(t, 0).cpus, "t");
  for (const auto& r : ranks) {
    CHECK(r.mems == "0");
    CHECK(first_outside(parse_list(r.cpus, "t"), node0) == -1);
  }
  CHECK(list_intersect(parse_list(ranks[0].cpus, "t"), parse_list(ranks[1].cpus, "t")).empty());
  // a GPU map that puts GPU 1 on NUMA1 contradicts the PCI locality
  auto [field, msg] = binding_error([&] { load_xml(fixture("mpibind-cts1-pascal.xml"), "", {0, 1}); });
  CHECK(field == "topology.gpu_numa_map");
  CHECK(msg.find("GPU 1 is on NUMA node 1, but its PCI device") != std::string::npos);
  CHECK(msg.find("is local to NUMA node 0") != std::string::npos);
}
