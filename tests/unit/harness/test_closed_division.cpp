// Closed division: the rules the official checker leaves to the submitter are plan errors at the key,
// and the planned global batch is compared with the ruleset's RCPs before anything is queued.
#include <doctest/doctest.h>

#include "harness/plan/build_plan.h"
#include "harness/plan/closed_division.h"
#include "plan_helpers.h"
#include "test_helpers.h"

using namespace bert::harness;

namespace {

// One 8-GPU node, batch 48: global batch 384, MLPerf eval interval 150,000.
const char* kClosed = R"(system:
  name: Box
  submitter: Org
nodes: {count: 1, gpus_per_node: 8}
topology:
  synthetic: "pack:2 numa:1 core:4 pu:2"
  gpu_numa_map: [0, 0, 0, 0, 1, 1, 1, 1]
benchmark:
  batch_size: 48
  data: {train_dir: /d/train, eval_dir: /d/eval, checkpoint: /d/phase1.h5}
experiment: {nexp: 10, seed_policy: "sequence:1", division: closed}
)";

Plan plan_of(std::vector<std::string> sets, const std::string& yaml = kClosed) { return plan_from(yaml, "c.yaml", std::move(sets)); }

}  // namespace

TEST_CASE("closed division: MLPerf's fixed values are errors at the key") {
  CHECK_NOTHROW(plan_of({}));
  CHECK(error_of([] { plan_of({"benchmark.target_accuracy=0.5"}); }) ==
        "--set benchmark.target_accuracy=0.5: benchmark.target_accuracy: closed division: the quality target is 0.720 "
        "masked-LM accuracy; got 0.5 (experiment.division: open allows other values)");
  CHECK(error_of([] { plan_of({"benchmark.max_seq_length=128"}); }) ==
        "--set benchmark.max_seq_length=128: benchmark.max_seq_length: closed division: benchmark.max_seq_length must be 512 "
        "(MLPerf's phase-2 sequence length); got 128 (experiment.division: open allows other values)");
  CHECK(error_of([] { plan_of({"benchmark.max_predictions_per_seq=20"}); }).find("must be 76") != std::string::npos);
  CHECK(error_of([] { plan_of({"benchmark.num_eval_examples=512"}); }).find("must be 10000") != std::string::npos);
  CHECK(error_of([] { plan_of({"benchmark.data.checkpoint="}); }).find("phase-1 checkpoint") != std::string::npos);
  CHECK(error_of([] { plan_of({"benchmark.model=base"}); }).find("BERT-Large") != std::string::npos);
  // the cadence: FLOOR(0.05 x (230.23 x 384 + 3e6), 25000) = 150000
  CHECK_NOTHROW(plan_of({"benchmark.eval_interval_samples=150000", "benchmark.eval_start_samples=150000"}));
  CHECK(error_of([] { plan_of({"benchmark.eval_interval_samples=100000"}); }) ==
        "--set benchmark.eval_interval_samples=100000: benchmark.eval_interval_samples: closed division: evaluation every "
        "FLOOR(0.05 x (230.23 x GBS + 3,000,000), 25,000) = 150000 samples for global batch 384; got 100000 (-1 = the formula) "
        "(experiment.division: open allows other values)");
  CHECK(error_of([] { plan_of({"benchmark.eval_start_samples=0"}); }).find("after one interval, 150000 samples") != std::string::npos);
  // packed data: the global batch counts sequences (x average_packing_rate), as the trainer logs it
  CHECK(error_of([] { plan_of({"benchmark.data.format=packed", "benchmark.average_packing_rate=8",
                               "benchmark.eval_interval_samples=150000"}); })
            .find("= 175000 samples for global batch 3072") != std::string::npos);
  // the same values pass in the open division
  CHECK_NOTHROW(plan_of({"experiment.division=open", "benchmark.target_accuracy=0.5", "benchmark.max_seq_length=128",
                         "benchmark.eval_interval_samples=1000", "benchmark.data.checkpoint="}));
}

TEST_CASE("closed division: one fixed seed for every run is a warning (the seed checker rejects it)") {
  Plan p = plan_of({"experiment.seed_policy=fixed:3"});
  REQUIRE(p.warnings.size() == 1);
  CHECK(p.warnings[0].find("same seed") != std::string::npos);
}

TEST_CASE("a ruleset without BERT rules is an error before any run is checked against it") {
  CHECK(error_of([] { plan_of({"experiment.ruleset=5.1.0"}); }) ==
        "--set experiment.ruleset=5.1.0: experiment.ruleset: no BERT rules for ruleset '5.1.0' (known: 3.1.0, 4.0.0, 4.1.0, "
        "5.0.0; BERT is not accepted after 5.0.0)");
  CHECK_NOTHROW(plan_of({"experiment.ruleset=4.1.0"}));
}

TEST_CASE("closed division: the submitter is required and the platform is the system's name") {
  CHECK(error_of([] { plan_of({"system.submitter="}); }).find("system.submitter: closed division: the submitting organization is required") !=
        std::string::npos);
  Plan p = plan_of({});
  CHECK(p.trainer_config["submission"]["submission_org"] == "Org");
  CHECK(p.trainer_config["submission"]["submission_platform"] == "1xBox");
  p = plan_of({"system.name=Baidu_8xDGXA100", "nodes.count=8", "launcher.type=srun", "experiment.output_dir=/o",
               "benchmark.eval_interval_samples=-1"});
  CHECK(p.trainer_config["submission"]["submission_platform"] == "Baidu_8xDGXA100");
}

TEST_CASE("closed division: the global batch against the RCPs, with the numbers") {
  Plan p = plan_of({});  // 384: between the pruned RCPs? No: below the smallest (448)
  CHECK(p.rcp == "global batch 384 (ruleset 5.0.0 RCPs): below the smallest RCP (batch 448): accepted only if the set's "
                 "olympic mean is >= 2274732 samples, else a new RCP is needed");
  p = plan_of({"benchmark.batch_size=56"});  // 448: an RCP of its own
  CHECK(p.rcp == "global batch 448 (ruleset 5.0.0 RCPs): RCP found: mean 2414421 samples to converge; the set's olympic "
                 "mean must be >= 2274732");
  p = plan_of({"benchmark.batch_size=96"});  // 768: interpolated (compliance.md's table: 2443933.54, min 2306737.78)
  CHECK(p.rcp == "global batch 768 (ruleset 5.0.0 RCPs): RCP interpolated between batch 448 and 4608: mean 2443934 samples; "
                 "the set's olympic mean must be >= 2306738");
  CHECK(p.warnings.empty());
  p = plan_of({"benchmark.batch_size=2052"});  // 16416 > 16384
  CHECK(p.rcp.find("no RCP: this set cannot be submitted without a bypass (the largest RCP is for batch 16384)") != std::string::npos);
  REQUIRE(p.warnings.size() == 1);
  CHECK(p.warnings[0] == p.rcp);
  CHECK(plan_of({"experiment.division=open"}).rcp.empty());
}

TEST_CASE("closed division gaps (issue 37): NEXP below 10, a config name that contradicts nodes.count") {
  auto has = [](const Plan& p, const std::string& text) {
    for (const std::string& w : p.warnings)
      if (w.find(text) != std::string::npos) return true;
    return false;
  };
  CHECK_FALSE(has(plan_of({}), "runs a BERT result needs"));
  CHECK(has(plan_of({"experiment.nexp=3"}), "closed division: experiment.nexp 3 is below the 10 runs a BERT result needs"));
  CHECK_FALSE(has(plan_of({"experiment.nexp=3", "experiment.division=open"}), "runs a BERT result needs"));
  const Plan named = plan_of({"system.config_name=Box_2x8x48x1"});
  CHECK(has(named, "system.config_name Box_2x8x48x1 says nodes 2 but nodes.count is 1"));
  CHECK_FALSE(has(plan_of({"system.config_name=Box_1x8x48x1"}), "says"));
}

TEST_CASE("system.name is one path component; launcher.master_addr a host name (issue 37)") {
  CHECK(error_of([] { plan_of({"system.name=../../etc"}); }) ==
        "--set system.name=../../etc: system.name: '../../etc' names results/<name>/ and systems/<name>.json: no '/', '\\', '.' "
        "or '..'");
  CHECK(error_of([] { plan_of({"launcher.master_addr=node_1"}); }).find("launcher.master_addr: 'node_1' is not a host name") !=
        std::string::npos);
}
