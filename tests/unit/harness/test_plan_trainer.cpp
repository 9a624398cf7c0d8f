// What the ranks will run: which trainer and whether its backend was verified, and a checkpoint the
// trainer cannot load (PyTorch, TensorFlow) stopped at the key with the conversion command.
#include <doctest/doctest.h>

#include "harness/plan/build_plan.h"
#include "trainer/backend_status.h"
#include "plan_helpers.h"
#include "test_helpers.h"

using namespace bert::harness;

namespace {

const char* kNode = R"(nodes: {count: 1, gpus_per_node: 2}
topology:
  synthetic: "pack:2 numa:1 core:2 pu:1"
  gpu_numa_map: [0, 1]
benchmark:
  data: {train_dir: /d/train, eval_dir: /d/eval, checkpoint: /ck/model.ckpt-28252.h5}
experiment: {nexp: 1, division: open, seed_policy: "fixed:1"}
)";

Plan plan_of(std::vector<std::string> sets) { return plan_from(kNode, "t.yaml", std::move(sets)); }

}  // namespace

TEST_CASE("the dry-run names the trainer and whether its backend was verified") {
  Plan p = plan_of({});  // GPU ranks: the cuda backend
  CHECK(p.trainer_program == "/b/trainer-cuda");
  const auto cuda = bert::trainer::backend_status(bert::trainer::Backend::Cuda, bert::trainer::Precision::bf16);
  CHECK(p.trainer_status == "cuda backend, bf16: " + std::string(cuda.verified ? "verified: " : "NOT VERIFIED: ") + cuda.evidence);
  CHECK(p.trainer_status.find("last device run: ") != std::string::npos);
  p = plan_of({"binding.unit=socket", "nodes.gpus_per_node=0", "topology.gpu_numa_map=[]"});
  CHECK(p.trainer_status.rfind("cpu backend, fp32: verified: ", 0) == 0);
  CHECK(Plan::from_json(p.to_json()).trainer_status == p.trainer_status);
}

TEST_CASE("a checkpoint the trainer cannot load is an error naming the conversion") {
  CHECK(error_of([] { plan_of({"benchmark.data.checkpoint=/ck/model.ckpt-28252.pt"}); }) ==
        "--set benchmark.data.checkpoint=/ck/model.ckpt-28252.pt: benchmark.data.checkpoint: '/ck/model.ckpt-28252.pt' is a "
        "PyTorch checkpoint; the trainer loads only its weights HDF5 (.h5). Convert MLPerf's TF phase-1 checkpoint instead: "
        "/b/bert-data convert-checkpoint <dir>/model.ckpt-28252 <dir>/model.ckpt-28252.h5");
  CHECK(error_of([] { plan_of({"benchmark.data.checkpoint=/ck/model.ckpt-28252.index"}); })
            .find("For a TF checkpoint: /b/bert-data convert-checkpoint /ck/model.ckpt-28252 /ck/model.ckpt-28252.h5") !=
        std::string::npos);
  CHECK_NOTHROW(plan_of({"benchmark.data.checkpoint=/ck/w.hdf5"}));
}
