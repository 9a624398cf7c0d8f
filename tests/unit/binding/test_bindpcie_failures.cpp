// NVIDIA's bindpcie (the script of its MLPerf training submissions) guesses GPU i -> NUMA i/gpus_per_node
// and hands out [r*cpg, (r+1)*cpg-1] plus the same range shifted by the number of physical cores. Its two
// known failures, reproduced from that arithmetic, and what our planner does instead.
#include <doctest/doctest.h>

#include "fixtures.h"

using namespace bert::binding;
using namespace bert::binding::test;

namespace {

struct Bindpcie {
  int cores_per_gpu;
  std::string list;
  int membind;
};

// bindpcie --cpu=exclusive for local rank r, from lscpu-style numbers only.
Bindpcie bindpcie_exclusive(int r, int sockets, int cores_per_socket, int numa_nodes, int num_gpus) {
  int cores_per_node = sockets * cores_per_socket / numa_nodes;
  int gpus_per_node = (num_gpus > 1 && num_gpus >= numa_nodes) ? num_gpus / numa_nodes : 1;
  int cpg = cores_per_node / gpus_per_node;
  int shift = cpg * gpus_per_node * numa_nodes;
  std::string list = std::to_string(r * cpg) + "-" + std::to_string((r + 1) * cpg - 1) + "," +
                     std::to_string(r * cpg + shift) + "-" + std::to_string((r + 1) * cpg - 1 + shift);
  return {cpg, list, r / gpus_per_node};
}

}  // namespace

TEST_CASE("bindpcie failure 1: DGX A100 NPS4, every rank stays in its GPU's quadrant") {
  NodeTopology t = load_xml(shipped("dgxa100.xml"));
  REQUIRE(t.gpus.size() == 8);
  const std::vector<int> true_numa{3, 3, 1, 1, 7, 7, 5, 5};
  CHECK(gpu_numas(t) == true_numa);
  auto ranks = plan_node(t, policy(CpuPolicy::Exclusive), 8);
  for (int r = 0; r < 8; ++r) {
    INFO("rank " << r);
    const IndexList quadrant = parse_list(numa(t, true_numa[r]).cpus, "t");
    CHECK(first_outside(parse_list(ranks[r].cpus, "t"), quadrant) == -1);
    CHECK(ranks[r].mems == std::to_string(true_numa[r]));
    CHECK(ranks[r].numa_node == true_numa[r]);
    // bindpcie: 2 sockets x 64 cores, 8 NUMA nodes, 8 GPUs -> 16 cores per rank on NUMA r
    Bindpcie guess = bindpcie_exclusive(r, 2, 64, 8, 8);
    CHECK(guess.membind != true_numa[r]);
    CHECK(list_intersect(parse_list(guess.list, "t"), quadrant).empty());
  }
  // GPU0 and GPU1 split NUMA node 3 (cores 48-63, siblings 176-191) in two halves
  CHECK(ranks[0].cpus == "48-55,176-183");
  CHECK(ranks[1].cpus == "56-63,184-191");
  CHECK(ranks[7].cpus == "88-95,216-223");
  CHECK(bindpcie_exclusive(0, 2, 64, 8, 8).list == "0-15,128-143");
}

TEST_CASE("bindpcie failure 2: P8000 with Weka-reserved 84-95,180-191") {
  const std::string reserved = "84-95,180-191";
  NodeTopology t = load_xml(shipped("p8000h100.xml"), reserved);
  CHECK(t.allowed_cpus == "0-83,96-179");
  CHECK(t.reserved_cpus == reserved);
  const IndexList allowed = parse_list(t.allowed_cpus, "t");
  const IndexList weka = parse_list(reserved, "t");
  for (CpuPolicy cpu : {CpuPolicy::Exclusive, CpuPolicy::ExclusiveNoSmt, CpuPolicy::Node, CpuPolicy::Socket}) {
    auto ranks = plan_node(t, policy(cpu), 8);
    for (const auto& r : ranks) {
      INFO("policy " << static_cast<int>(cpu) << " rank " << r.local_rank << ": " << r.cpus);
      IndexList cpus = parse_list(r.cpus, "t");
      CHECK(!cpus.empty());
      CHECK(first_outside(cpus, allowed) == -1);
      CHECK(list_intersect(cpus, weka).empty());
    }
  }
  auto ranks = plan_node(t, policy(CpuPolicy::Exclusive), 8);
  // NUMA1 keeps 36 allowed cores (48-83) for 4 GPUs: 9 cores each
  CHECK(ranks[4].cpus == "48-56,144-152");
  CHECK(ranks[7].cpus == "75-83,171-179");
  CHECK(ranks[0].cpus == "0-11,96-107");

  // bindpcie: 2 sockets x 48 cores, 2 NUMA nodes, 8 GPUs -> rank 7 gets exactly the Weka cores
  Bindpcie guess = bindpcie_exclusive(7, 2, 48, 2, 8);
  CHECK(guess.list == reserved);
  BindingPolicy as_bindpcie = policy(CpuPolicy::Map);
  for (int r = 0; r < 8; ++r) as_bindpcie.cpu_map.push_back(bindpcie_exclusive(r, 2, 48, 2, 8).list);
  auto [field, msg] = binding_error([&] { plan_node(t, as_bindpcie, 8); });
  CHECK(field == "binding.cpu_map");
  CHECK(msg == "local rank 7: <84-95,180-191> is invalid: cpu argument 84 is out of range (allowed: 0-83,96-179)");
}
