// NICs in the Plan: each rank's nearest NIC from a real lstopo export, exported as its launcher's
// libraries read it, warnings, the YAML override, and the plan.json round trip.
#include <doctest/doctest.h>

#include "harness/plan/build_plan.h"
#include "plan_helpers.h"
#include "test_helpers.h"

using namespace bert::harness;

namespace {

std::string fixture(const std::string& name) { return std::string(BERT_SOURCE_DIR) + "/tests/fixtures/binding/" + name; }

Plan plan_on(const std::string& xml, const std::string& launcher, std::vector<std::string> sets = {}) {
  std::string yaml = "nodes: {count: 1, gpus_per_node: auto}\ntopology: {xml: " + xml + "}\nlauncher:\n  type: " + launcher +
                     "\n  mpirun: {hosts: [a]}\nbenchmark:\n  data: {train_dir: /d/train, eval_dir: /d/eval}\n";
  sets.insert(sets.begin(), "experiment.division=open");
  return plan_from(yaml, "nic.yaml", std::move(sets));
}

bool has_warning(const Plan& p, const std::string& start) {
  for (const auto& w : p.warnings)
    if (w.rfind(start, 0) == 0) return true;
  return false;
}

}  // namespace

TEST_CASE("each launcher exports a rank's NICs in the variables its libraries read") {
  const std::string corona = fixture("mpibind-epyc-corona-p2.xml");
  Plan srun = plan_on(corona, "srun");
  const RankPlan& r6 = srun.nodes[0].ranks[6];  // GPU 0000:c3:00.0 shares the NIC's root complex
  CHECK(r6.binding.nics == std::vector<std::string>{"mlx5_0:1"});
  CHECK(r6.binding.nic_locality == "host-bridge");
  CHECK(r6.env.at("NCCL_IB_HCA") == "=mlx5_0:1");
  CHECK(r6.env.at("UCX_NET_DEVICES") == "mlx5_0:1");
  CHECK_FALSE(r6.env.contains("OMPI_MCA_btl_openib_if_include"));

  Plan mpirun = plan_on(corona, "mpirun");
  CHECK(mpirun.nodes[0].ranks[0].env.at("OMPI_MCA_btl_openib_if_include") == "mlx5_0:1");
  CHECK(mpirun.nodes[0].ranks[0].env.at("UCX_NET_DEVICES") == "mlx5_0:1");

  Plan local = plan_on(corona, "local", {"binding.cpu=node"});
  CHECK(local.nodes[0].ranks[0].env.at("NCCL_IB_HCA") == "=mlx5_0:1");
  CHECK_FALSE(local.nodes[0].ranks[0].env.contains("UCX_NET_DEVICES"));

  // socket 0's four GPUs cross to socket 1 for the one HCA
  CHECK(has_warning(srun, "local ranks 0-3 (GPUs 0-3) on package 0 have no NIC on their socket: they share mlx5_0"));
}

TEST_CASE("binding.nic: none, a map, a variable the YAML sets for the job, and apply trainer") {
  const std::string corona = fixture("mpibind-epyc-corona-p2.xml");
  Plan none = plan_on(corona, "srun", {"binding.nic=none"});
  CHECK(none.nodes[0].ranks[0].binding.nics.empty());
  CHECK_FALSE(none.nodes[0].ranks[0].env.contains("NCCL_IB_HCA"));
  CHECK_FALSE(has_warning(none, "local ranks 0-3"));

  Plan map = plan_on(corona, "srun", {"binding.nic=map", "nodes.ranks_per_node=2",
                                      "binding.nic_map=[mlx5_0:1, mlx5_0:1]"});
  CHECK(map.nodes[0].ranks[1].env.at("NCCL_IB_HCA") == "=mlx5_0:1");
  CHECK(map.nodes[0].ranks[1].binding.nic_locality == "map");
  CHECK(map.binding.nic == "map");

  Plan job = plan_on(corona, "srun", {"env.NCCL_IB_HCA=mlx5"});
  CHECK_FALSE(job.nodes[0].ranks[0].env.contains("NCCL_IB_HCA"));  // the job's value stays
  CHECK(job.nodes[0].ranks[0].env.at("UCX_NET_DEVICES") == "mlx5_0:1");

  Plan trainer = plan_on(corona, "srun", {"binding.apply=trainer"});
  CHECK_FALSE(trainer.nodes[0].ranks[0].env.contains("NCCL_IB_HCA"));
  CHECK(trainer.nodes[0].ranks[0].binding.nics == std::vector<std::string>{"mlx5_0:1"});  // still shown
  CHECK(has_warning(trainer, "binding.apply trainer: srun gives all ranks one environment"));

  CHECK(error_of([&] { plan_on(corona, "srun", {"binding.nic=map", "nodes.ranks_per_node=1", "binding.nic_map=[mlx5_7]"}); })
            .find("binding.nic_map: local rank 0: NIC 'mlx5_7' is not in ") != std::string::npos);
}

TEST_CASE("the NICs round-trip through plan.json") {
  Plan p = plan_on(fixture("mpibind-cts1-pascal.xml"), "srun");
  Plan back = Plan::from_json(p.to_json());
  CHECK(back.to_json() == p.to_json());
  CHECK(back.nodes[0].topology.nics.size() == 1);
  CHECK(back.nodes[0].ranks[1].binding.nics == std::vector<std::string>{"mlx5_0:1"});
  CHECK(back.nodes[0].ranks[1].binding.nic_locality == "pci-switch");
}
