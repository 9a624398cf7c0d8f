// The shipped systems/*.yaml: each builds; DGX A100 ranks sit on their GPU's NUMA node; the P8000 never
// hands out a Weka-reserved core; the 171-node Samsung plan has 1368 ranks.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "binding/cpu_list.h"
#include "harness/config/config.h"
#include "harness/plan/build_plan.h"
#include "plan_helpers.h"

using namespace bert::harness;
namespace fs = std::filesystem;

namespace {
// The YAML files of a folder of the source tree.
std::vector<fs::path> yaml_files(const std::string& folder) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(std::string(BERT_SOURCE_DIR) + "/" + folder))
    if (e.path().extension() == ".yaml") out.push_back(e.path());
  return out;
}
}  // namespace

TEST_CASE("every shipped system builds a plan") {
  const std::vector<fs::path> files = yaml_files("systems");
  CHECK(files.size() >= 14);
  for (const fs::path& path : files) {
    INFO(path.string());
    Plan p;
    CHECK_NOTHROW(p = shipped_plan(path.filename().string()));
    CHECK(p.world_size == p.num_nodes * p.ranks_per_node);
    std::vector<std::string> expected;  // facts about the shipped systems, not mistakes
    if (path.filename().string().rfind("samsung_", 0) == 0)  // its hostfile exists on Samsung's cluster only
      expected.push_back("launcher.mpirun.hostfile /etc/mlperf/samsung_hosts cannot be read here");
    if (path.filename() == "samsung_dgxa100_171x8x12x1.yaml")  // as submitted: global batch 16416 > 16384
      expected.push_back("no RCP: this set cannot be submitted without a bypass");
    if (path.filename() == "dgxa100_1x8x56x1_nvidia.yaml")  // its NICs are bindpcie's to choose
      expected.push_back("binding.apply trainer: srun gives all ranks one environment, so the NICs below are not exported");
    REQUIRE(p.warnings.size() == expected.size());
    for (size_t i = 0; i < expected.size(); ++i) CHECK(p.warnings[i].find(expected[i]) != std::string::npos);
  }
}

TEST_CASE("a shared base describes hardware and settings, never who submits: no systems/common file names a submitter") {
  const std::vector<fs::path> files = yaml_files("systems/common");
  CHECK(files.size() >= 6);
  for (const fs::path& path : files) {
    INFO(path.string());
    CHECK_FALSE(Config::load(path.string()).given("system.submitter"));
  }
  CHECK(shipped_plan("dgxh100_1x8x48x1_pack.yaml").system_json["submitter"] == "NVIDIA");  // the system file's own
}

TEST_CASE("DGX A100: every rank's CPUs and memory are on its GPU's NUMA node (3,3,1,1,7,7,5,5)") {
  Plan p = shipped_plan("dgxa100_1x8x56x1.yaml");
  const int expected[8] = {3, 3, 1, 1, 7, 7, 5, 5};
  const auto& topo = p.nodes[0].topology;
  for (const RankPlan& r : p.nodes[0].ranks) {
    INFO("rank " << r.local_rank);
    CHECK(r.binding.numa_node == expected[r.local_rank]);
    CHECK(r.binding.mems == std::to_string(expected[r.local_rank]));
    std::string node_cpus;
    for (const auto& n : topo.numa)
      if (n.os_index == expected[r.local_rank]) node_cpus = n.cpus;
    auto cpus = bert::binding::parse_list(r.binding.cpus, "cpus");
    CHECK(!cpus.empty());
    CHECK(bert::binding::list_minus(cpus, bert::binding::parse_list(node_cpus, "node")).empty());
  }
  CHECK(p.nodes[0].ranks[0].binding.cpus == "48-55,176-183");
}

TEST_CASE("P8000: no rank gets a Weka-reserved core, and every srun carries --gres=gpu:8") {
  Plan p = shipped_plan("p8000h100_1x8x48x1_pack.yaml");
  auto reserved = bert::binding::parse_list("84-95,180-191", "reserved");
  for (const RankPlan& r : p.nodes[0].ranks) {
    INFO("rank " << r.local_rank);
    auto cpus = bert::binding::parse_list(r.binding.cpus, "cpus");
    CHECK(!cpus.empty());
    CHECK(bert::binding::list_intersect(cpus, reserved).empty());
  }
  for (const Command* c : {&p.setup.at(0), &p.cache_clear, &p.launch}) {
    CHECK(c->argv.front() == "srun");
    CHECK(c->shell().find("--gres=gpu:8") != std::string::npos);
  }
  CHECK(p.launch.shell().find("--mpi=pmi2") != std::string::npos);
  CHECK(p.launch.shell().find("/dev/infiniband:/dev/infiniband") != std::string::npos);
}

TEST_CASE("Samsung 171 nodes: 1368 ranks over mpirun with a hostfile") {
  Plan p = shipped_plan("samsung_dgxa100_171x8x12x1.yaml");
  CHECK(p.world_size == 1368);
  CHECK(p.nodes.back().ranks.back().global_rank == 1367);
  CHECK(p.launch.argv.front() == "mpirun");
  CHECK(p.config_name == "Samsung_Supercomputer21_DGXA100_171x8x12x1");
}

TEST_CASE("MLPerf config names of the NVIDIA-lineage systems") {
  CHECK(shipped_plan("dgxa100_1x8x56x1.yaml").config_name == "DGXA100_1x8x56x1");
  CHECK(shipped_plan("p8000h100_1x8x48x1_pack.yaml").config_name == "P8000H100_1x8x48x1_pack");
}
