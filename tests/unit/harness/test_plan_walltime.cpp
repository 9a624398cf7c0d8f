// experiment.run_walltime (per-experiment watchdog) and experiment.job_walltime (sbatch --time), one
// derived from the other with NVIDIA's rule; the retired experiment.walltime names both.
#include <doctest/doctest.h>

#include "harness/plan/build_plan.h"
#include "harness/plan/walltime.h"
#include "plan_helpers.h"
#include "test_helpers.h"

using namespace bert::harness;

namespace {

const char* kSlurm = R"(
nodes: {count: 2, gpus_per_node: 0}
topology: {synthetic: "pack:2 numa:1 core:4 pu:2"}
launcher: {type: srun}
benchmark:
  data: {train_dir: /d/train, eval_dir: /d/eval}
experiment:
  nexp: 10
  output_dir: /o
  division: open
)";

Plan plan_of(const std::string& yaml, std::vector<std::string> sets, std::map<std::string, std::string> env = {}) {
  return plan_from(yaml, "w.yaml", std::move(sets), std::move(env));
}

}  // namespace

TEST_CASE("walltime: Slurm times in, whole minutes or h:mm:ss out") {
  CHECK(parse_walltime_seconds("1-02") == 93600);
  CHECK(parse_walltime_seconds("1-02:03:04") == 93784);
  CHECK_THROWS_AS(parse_walltime_seconds(":5"), std::invalid_argument);
  CHECK(format_walltime(135 * 60) == "135");
  CHECK(format_walltime(330) == "0:05:30");
}

TEST_CASE("walltime: the job's limit is derived from the per-experiment one, and the other way round") {
  Plan p = plan_of(kSlurm, {"experiment.run_walltime=8"});
  CHECK(p.experiment.run_walltime == "8");
  CHECK(p.experiment.job_walltime == "135");  // 5 + 10 x (8 + 5)
  CHECK(p.experiment.walltime_derived == "job");
  CHECK(p.submit.shell() == "sbatch --nodes=2 --time=135 slurm/run.sub w.yaml");

  p = plan_of(kSlurm, {"experiment.job_walltime=2:15:00"});
  CHECK(p.experiment.run_walltime == "8");
  CHECK(p.experiment.walltime_derived == "run");

  p = plan_of(kSlurm, {"experiment.run_walltime=10", "experiment.job_walltime=60"});
  CHECK(p.experiment.run_walltime == "10");
  CHECK(p.experiment.job_walltime == "60");
  CHECK(p.experiment.walltime_derived == "");
  REQUIRE(p.warnings.size() == 1);  // 60 < 5 + 10 x (10 + 5)
  CHECK(p.warnings[0] == "experiment.job_walltime 60 is shorter than 5 + NEXP 10 x (run 10 + 5) = 155 minutes: the job may end "
                         "before its last experiments (--resume continues them)");

  // env WALLTIME is the job's (NVIDIA's run.sub meaning), WALLTIME_RUNANDTIME the experiment's
  p = plan_of(kSlurm, {}, {{"WALLTIME", "100"}});
  CHECK(p.experiment.job_walltime == "100");
  CHECK(p.experiment.run_walltime == "0:04:30");  // (100 - 5) / 10 - 5
  p = plan_of(kSlurm, {}, {{"WALLTIME_RUNANDTIME", "8"}});
  CHECK(p.experiment.job_walltime == "135");
}

TEST_CASE("walltime: a job too short for NEXP experiments and the retired key are errors at the key") {
  CHECK(error_of([] { plan_of(kSlurm, {"experiment.job_walltime=50"}); }) ==
        "--set experiment.job_walltime=50: experiment.job_walltime: '50' leaves no time for 10 experiment(s): the job needs "
        "5 + NEXP x (run + 5) minutes (5 for setup, 5 around each experiment)");
  CHECK(error_of([] { plan_of(kSlurm, {"experiment.run_walltime=1h"}); }).find("is not a Slurm time") != std::string::npos);
  CHECK(error_of([] { plan_of(std::string(kSlurm) + "  walltime: \"85\"\n", {}); })
            .find("experiment.walltime was split in two: write experiment.run_walltime") != std::string::npos);
  CHECK(error_of([] { plan_of(kSlurm, {"experiment.walltime=0:15"}); }).find("experiment.job_walltime") != std::string::npos);
}
