// The topology files of the systems we ship (systems/topologies/*.xml).
#include <doctest/doctest.h>

#include "fixtures.h"

using namespace bert::binding;
using namespace bert::binding::test;

TEST_CASE("DGX H100: exclusive gives bindpcie's (correct there) 14 cores + siblings per GPU") {
  NodeTopology t = load_xml(shipped("dgxh100.xml"));
  CHECK(t.packages == 2);
  CHECK(t.cores == 112);
  CHECK(t.pus == 224);
  CHECK(gpu_numas(t) == std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1});
  CHECK(t.gpus[0].pci_busid == "0000:18:00.0");
  CHECK(t.gpus[0].osdevs == std::vector<std::string>{"cuda0", "nvml0"});
  CHECK(t.gpus[0].model == "NVIDIA H100 80GB HBM3");
  auto ranks = plan_node(t, policy(CpuPolicy::Exclusive), 8);
  CHECK(cpus_of(ranks) == std::vector<std::string>{"0-13,112-125", "14-27,126-139", "28-41,140-153",
                                                   "42-55,154-167", "56-69,168-181", "70-83,182-195",
                                                   "84-97,196-209", "98-111,210-223"});
  CHECK(ranks[3].mems == "0");
  CHECK(ranks[4].mems == "1");
  CHECK(ranks[7].gpu_busid == "0000:db:00.0");
  auto nosmt = plan_node(t, policy(CpuPolicy::ExclusiveNoSmt), 8);
  CHECK(nosmt[0].cpus == "0-13");
  CHECK(nosmt[7].cpus == "98-111");
}

TEST_CASE("DGX A100 and Samsung A100: NVSwitches and BMC VGA are not GPUs") {
  for (const char* name : {"dgxa100.xml", "samsung_dgxa100.xml"}) {
    INFO(name);
    NodeTopology t = load_xml(shipped(name));
    CHECK(t.gpus.size() == 8);
    CHECK(t.numa.size() == 8);
    CHECK(nvidia_pci_devices(shipped(name)) == 14);  // 8 A100 + 6 NVSwitches
    CHECK(gpu_numas(t) == std::vector<int>{3, 3, 1, 1, 7, 7, 5, 5});
    for (const auto& g : t.gpus) CHECK(g.vendor == "NVIDIA");
  }
  NodeTopology s = load_xml(shipped("samsung_dgxa100.xml"));
  CHECK(s.cores == 64);
  CHECK(numa(s, 3).cpus == "24-31,88-95");
  auto ranks = plan_node(s, policy(CpuPolicy::Exclusive), 8);
  CHECK(ranks[0].cpus == "24-27,88-91");
  CHECK(ranks[1].cpus == "28-31,92-95");
}

TEST_CASE("Iluvatar: 8 cards found by vendor 0x1e3e") {
  NodeTopology t = load_xml(shipped("iluvatar8.xml"));
  REQUIRE(t.gpus.size() == 8);
  CHECK(t.gpus[0].vendor == "Iluvatar");
  CHECK(gpu_numas(t) == std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1});
  auto ranks = plan_node(t, policy(CpuPolicy::Exclusive), 8);
  CHECK(ranks[0].cpus == "0-7,64-71");
  CHECK(ranks[7].cpus == "56-63,120-127");
}

TEST_CASE("Xeon 2-socket CPU node: no GPU, ranks per socket or per NUMA node") {
  NodeTopology t = load_xml(shipped("xeon_2s.xml"));
  CHECK(t.gpus.empty());
  CHECK(t.pus == 160);
  auto per_socket = plan_node(t, policy(CpuPolicy::Socket, MemPolicy::Node, RankUnit::Socket), 2);
  CHECK(per_socket[0].cpus == "0-39,80-119");
  CHECK(per_socket[1].cpus == "40-79,120-159");
  CHECK(per_socket[1].mems == "1");
  CHECK(per_socket[1].gpu == -1);
  auto per_numa = plan_node(t, policy(CpuPolicy::ExclusiveNoSmt, MemPolicy::Node, RankUnit::Numa), 2);
  CHECK(per_numa[0].cpus == "0-39");
  auto [field, msg] = binding_error([&] { plan_node(t, policy(CpuPolicy::Exclusive, MemPolicy::Node, RankUnit::Socket), 3); });
  CHECK(field == "binding.unit");
  CHECK(msg.find("3 local ranks requested but") != std::string::npos);
  CHECK(msg.find("has 2 sockets") != std::string::npos);
  auto [gfield, gmsg] = binding_error([&] { plan_node(t, policy(CpuPolicy::Exclusive), 1); });
  CHECK(gfield == "binding.unit");
  CHECK(gmsg.find("has 0 GPUs") != std::string::npos);
}

TEST_CASE("single-GPU 16-core boxes") {
  for (const char* name : {"h100_1gpu_16c.xml", "h200_1gpu_16c.xml"}) {
    INFO(name);
    NodeTopology t = load_xml(shipped(name));
    REQUIRE(t.gpus.size() == 1);
    CHECK(t.pus == 16);
    auto ranks = plan_node(t, policy(CpuPolicy::Exclusive), 1);
    CHECK(ranks[0].cpus == "0-15");
    CHECK(ranks[0].mems == "0");
    CHECK(ranks[0].gpu == 0);
  }
  CHECK(load_xml(shipped("h200_1gpu_16c.xml")).gpus[0].model == "NVIDIA H200");
}

TEST_CASE("every shipped SMT topology numbers siblings the Linux way (sibling = PU + number of cores)") {
  for (const char* name : {"dgxa100.xml", "dgxh100.xml", "p8000h100.xml", "samsung_dgxa100.xml", "xeon_2s.xml", "iluvatar8.xml"}) {
    INFO(name);
    check_linux_smt(load_xml(shipped(name)));
  }
}
