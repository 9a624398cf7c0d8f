// NICs in the binding: found in real lstopo exports (tests/fixtures/binding), placed by PCI locality.
#include <doctest/doctest.h>

#include "binding/binding_json.h"
#include "binding/topology_compare.h"
#include "fixtures.h"

using namespace bert::binding;
using namespace bert::binding::test;

namespace {

std::vector<std::string> nics_of(const std::vector<RankBinding>& ranks) {
  std::vector<std::string> out;
  for (const auto& r : ranks) {
    std::string s;
    for (const auto& n : r.nics) s += (s.empty() ? "" : ",") + n;
    out.push_back(s + " " + r.nic_locality);
  }
  return out;
}

}  // namespace

TEST_CASE("cts1-pascal: the ConnectX-5 behind the GPUs' PLX switch is found with its port and netdev") {
  NodeTopology t = load_xml(fixture("mpibind-cts1-pascal.xml"));
  REQUIRE(t.nics.size() == 1);  // the two I350 Ethernet ports have no OpenFabrics device: not RDMA NICs
  const Nic& n = t.nics[0];
  CHECK(n.name == "mlx5_0");
  CHECK(n.pci_busid == "0000:08:00.0");
  CHECK(n.numa_node == 0);
  CHECK(n.ports == std::vector<int>{1});
  CHECK(n.netdevs == std::vector<std::string>{"hsi0"});
  CHECK(n.pci_path == std::vector<std::string>{"host 0000:[00-0c]", "0000:00:03.0", "0000:02:00.0", "0000:03:14.0"});
  CHECK(t.gpus[0].pci_path == std::vector<std::string>{"host 0000:[00-0c]", "0000:00:03.0", "0000:02:00.0", "0000:03:04.0"});
  // both P100s share the switch with it: they share it, on their own socket, so no warning
  auto ranks = plan_node(t, policy(CpuPolicy::Exclusive), 2);
  CHECK(nics_of(ranks) == std::vector<std::string>{"mlx5_0:1 pci-switch", "mlx5_0:1 pci-switch"});
  CHECK(nic_warnings(t, ranks).empty());
}

TEST_CASE("Corona: one ConnectX-6 on socket 1; its root complex, then its NUMA node, then across the socket") {
  NodeTopology t = load_xml(fixture("mpibind-epyc-corona-p2.xml"));
  REQUIRE(t.nics.size() == 1);
  CHECK(t.nics[0].name == "mlx5_0");
  CHECK(t.nics[0].pci_busid == "0000:c4:00.0");
  CHECK(t.nics[0].numa_node == 1);
  auto ranks = plan_node(t, policy(CpuPolicy::Exclusive), 8);
  // GPUs 0-3 (bus 03, 27, 43, 63) on socket 0; GPU 6 (c3) shares the host bridge [c0-c8] with the NIC
  CHECK(nics_of(ranks) == std::vector<std::string>{"mlx5_0:1 other-socket", "mlx5_0:1 other-socket",
                                                   "mlx5_0:1 other-socket", "mlx5_0:1 other-socket",
                                                   "mlx5_0:1 numa", "mlx5_0:1 numa", "mlx5_0:1 host-bridge",
                                                   "mlx5_0:1 numa"});
  auto w = nic_warnings(t, ranks);
  REQUIRE(w.size() == 1);
  CHECK(w[0] == "local ranks 0-3 (GPUs 0-3) on package 0 have no NIC on their socket: they share mlx5_0 on package 1, "
                "used by 8 ranks, across the inter-socket link (binding.nic_map overrides)");
  // CPU-only ranks, one per socket: the same rule from the NUMA node
  auto sockets = plan_node(t, policy(CpuPolicy::Socket, MemPolicy::Node, RankUnit::Socket), 2);
  CHECK(nics_of(sockets) == std::vector<std::string>{"mlx5_0:1 other-socket", "mlx5_0:1 numa"});
  CHECK(nic_warnings(t, sockets).size() == 1);
}

TEST_CASE("g4dn.metal: the EFA adapter (rdmap197s0) is the only RDMA device, on socket 1") {
  NodeTopology t = load_xml(fixture("mpibind-g4dnmetal.xml"));
  REQUIRE(t.nics.size() == 1);
  CHECK(t.nics[0].name == "rdmap197s0");
  CHECK(t.nics[0].numa_node == 1);
  auto ranks = plan_node(t, policy(CpuPolicy::Exclusive), 8);
  for (int r = 0; r < 4; ++r) CHECK(ranks[size_t(r)].nic_locality == "other-socket");
  for (int r = 4; r < 8; ++r) CHECK(ranks[size_t(r)].nic_locality != "other-socket");
  CHECK(nic_warnings(t, ranks).size() == 1);
}

TEST_CASE("a topology without NICs gives no NIC and no warning") {
  NodeTopology t = load_xml(fixture("hwloc-nvidiaDGX2.xml"));
  CHECK(t.nics.empty());
  auto ranks = plan_node(t, policy(CpuPolicy::Node), 16);
  for (const auto& r : ranks) CHECK(r.nics.empty());
  CHECK(nic_warnings(t, ranks).empty());
}

TEST_CASE("binding.nic none and map") {
  NodeTopology t = load_xml(fixture("mpibind-epyc-corona-p2.xml"));
  BindingPolicy p = policy(CpuPolicy::Exclusive);
  p.nic = NicPolicy::None;
  for (const auto& r : plan_node(t, p, 8)) CHECK(r.nics.empty());

  p.nic = NicPolicy::Map;
  p.nic_map = {"mlx5_0", "mlx5_0:2"};
  auto ranks = plan_node(t, p, 2);
  CHECK(nics_of(ranks) == std::vector<std::string>{"mlx5_0:1 map", "mlx5_0:2 map"});
  CHECK(nic_warnings(t, ranks).empty());  // a map is the user's choice

  p.nic_map = {"mlx5_0", "mlx5_1"};
  auto [field, msg] = binding_error([&] { plan_node(t, p, 2); });
  CHECK(field == "binding.nic_map");
  CHECK(msg == "local rank 1: NIC 'mlx5_1' is not in " + fixture("mpibind-epyc-corona-p2.xml") + " (its NICs: mlx5_0)");
  p.nic_map = {"mlx5_0"};
  auto [field2, msg2] = binding_error([&] { plan_node(t, p, 2); });
  CHECK(field2 == "binding.nic_map");
  CHECK(msg2 == "has 1 entry for 2 local ranks (one entry per local rank)");
  p.nic_map = {"mlx5_0,", "mlx5_0"};
  CHECK(binding_error([&] { plan_node(t, p, 2); }).second == "local rank 0: empty NIC name in 'mlx5_0,'");
  // a synthetic topology lists no NICs: the map is taken as written (port 1 unless given)
  NodeTopology s = load_synthetic("pack:2 numa:1 core:4 pu:1", {0, 1});
  p.nic_map = {"mlx5_3", "mlx5_4:2"};
  CHECK(nics_of(plan_node(s, p, 2)) == std::vector<std::string>{"mlx5_3:1 map", "mlx5_4:2 map"});
}

TEST_CASE("NICs survive the plan's JSON and are compared with the node") {
  NodeTopology t = load_xml(fixture("mpibind-cts1-pascal.xml"));
  NodeTopology back = ojson(t).get<NodeTopology>();
  CHECK(ojson(back) == ojson(t));
  CHECK(compare_topologies(back, t).matches());
  NodeTopology moved = back;
  moved.nics[0].pci_busid = "0000:09:00.0";
  CHECK(compare_topologies(moved, t).differences ==
        std::vector<std::string>{"NIC mlx5_0: expected at PCI 0000:09:00.0, this node has it at 0000:08:00.0"});
  NodeTopology none = back;
  none.nics.clear();  // a plan that lists no NIC does not check them
  CHECK(compare_topologies(none, t).matches());
  auto ranks = plan_node(t, policy(CpuPolicy::Exclusive), 2);
  RankBinding r = ojson(ranks[1]).get<RankBinding>();
  CHECK(r.nics == ranks[1].nics);
  CHECK(r.nic_locality == "pci-switch");
}
