// experiment.run_walltime (per-experiment watchdog) and experiment.job_walltime (sbatch --time), one
// derived from the other with NVIDIA's rule; the retired experiment.walltime names both.
#include <doctest/doctest.h>

#include <stdexcept>

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
  // sbatch --time's six forms (minutes, minutes:seconds, hours:minutes:seconds, days-hours, days-hours:minutes,
  // days-hours:minutes:seconds); Slurm does not range-check a field (sbatch --time=00:70:00 gives TimeLimit=01:10:00)
  CHECK(parse_walltime_seconds("75") == 4500);
  CHECK(parse_walltime_seconds("75:30") == 4530);
  CHECK(parse_walltime_seconds("00:70:00") == 4200);
  CHECK(parse_walltime_seconds("0:0:4500") == 4500);
  CHECK(parse_walltime_seconds("1-02") == 93600);
  CHECK(parse_walltime_seconds("1-02:03") == 93780);
  CHECK(parse_walltime_seconds("1-02:03:04") == 93784);
  CHECK(parse_walltime_seconds("0-30:00") == 108000);  // days-hours:minutes: 30 hours
  CHECK(parse_walltime_seconds("30") == 1800);
  CHECK(parse_walltime_seconds("0:02") == 2);
  CHECK(parse_walltime_seconds("12:30") == 750);
  CHECK(parse_walltime_seconds("01:15:00") == 4500);
  CHECK(parse_walltime_seconds("1:60") == 120);  // minutes:seconds, a field past 59 too
  CHECK(parse_walltime_seconds("") == 0);
  CHECK(parse_walltime_seconds("UNLIMITED") == 0);
  CHECK(parse_walltime_seconds("INFINITE") == 0);
  CHECK(parse_walltime_seconds("0") == 0);
  CHECK_THROWS_AS(parse_walltime_seconds("1-2-3"), std::invalid_argument);
  CHECK_THROWS_AS(parse_walltime_seconds("1:2:3:4"), std::invalid_argument);
  CHECK_THROWS_AS(parse_walltime_seconds("70m"), std::invalid_argument);
  CHECK_THROWS_AS(parse_walltime_seconds(":5"), std::invalid_argument);
  CHECK_THROWS_AS(parse_walltime_seconds("1h"), std::invalid_argument);
  CHECK_THROWS_WITH(parse_walltime_seconds("-5"), doctest::Contains("'-5'"));
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

TEST_CASE("walltime: 00:70:00 is 70 minutes; UNLIMITED and 0 are no limit") {
  Plan p = plan_of(kSlurm, {"experiment.run_walltime=00:70:00"});
  CHECK(p.experiment.run_walltime == "00:70:00");
  CHECK(p.experiment.job_walltime == "755");  // 5 + 10 x (70 + 5)
  p = plan_of(kSlurm, {"experiment.run_walltime=UNLIMITED", "experiment.job_walltime=0"});
  CHECK(p.experiment.run_walltime == "");
  CHECK(p.experiment.job_walltime == "UNLIMITED");
  CHECK(p.submit.shell() == "sbatch --nodes=2 --time=UNLIMITED slurm/run.sub w.yaml");
  p = plan_of(kSlurm, {});  // none given: no --time, the partition's default
  CHECK(p.experiment.job_walltime == "");
  CHECK(p.submit.shell() == "sbatch --nodes=2 slurm/run.sub w.yaml");
}

TEST_CASE("walltime: a job given no limit (UNLIMITED, any case) keeps it beside a per-run limit: nothing derived (issue 48)") {
  for (const char* word : {"UNLIMITED", "unlimited", "INFINITE", "-1"}) {
    INFO(word);
    Plan p = plan_of(kSlurm, {"experiment.run_walltime=12", std::string("experiment.job_walltime=") + word});
    CHECK(p.experiment.run_walltime == "12");
    CHECK(p.experiment.job_walltime == "UNLIMITED");
    CHECK(p.experiment.walltime_derived == "");
    CHECK(p.submit.shell() == "sbatch --nodes=2 --time=UNLIMITED slurm/run.sub w.yaml");
  }
  const Walltimes w = resolve_walltimes("12", "UNLIMITED", 10);
  CHECK(w.job == "UNLIMITED");
  CHECK(w.derived.empty());
  // runs given no limit (Dell v4.1: WALLTIME_MINUTES=UNLIMITED, no WALLTIME): the job has none either
  Plan p = plan_of(kSlurm, {"experiment.run_walltime=UNLIMITED"});
  CHECK(p.experiment.run_walltime == "");
  CHECK(p.experiment.job_walltime == "UNLIMITED");
  CHECK(p.submit.shell() == "sbatch --nodes=2 --time=UNLIMITED slurm/run.sub w.yaml");
}

TEST_CASE("walltime: a per-run limit no run can finish in: refused in the closed division, a warning in the open") {
  // 2 nodes x 8 GPUs x batch 48: global batch 768, RCP mean ~2.5M samples; at 2000 samples/s per rank (faster
  // than any MLPerf BERT result) a converging run takes at least ~78 s; max_steps 1000 x 768 caps it at 24 s.
  std::string base = std::string(kSlurm);
  base.replace(base.find("gpus_per_node: 0"), 16, "gpus_per_node: 8");
  base.replace(base.find("core:4 pu:2\"}"), 13, "core:4 pu:2\", gpu_numa_map: [0,0,0,0,1,1,1,1]}");
  base.replace(base.find("benchmark:\n"), 11, "benchmark:\n  batch_size: 48\n  max_steps: 100000\n");
  Plan open = plan_of(base, {"experiment.run_walltime=0:01:00"});
  REQUIRE(!open.warnings.empty());
  CHECK(open.warnings.back().find("the per-run limit 0:01:00 is shorter than any run can take: at least 1.3 minutes") == 0);
  CHECK(open.warnings.back().find("(the RCP mean for global batch 768) at 2000 samples/s on each of 16 rank(s)") != std::string::npos);
  // the job's limit divided by NEXP: the error is at job_walltime, with the rule that gave the run its limit
  const std::vector<std::string> closed{"experiment.division=closed", "system.submitter=Org", "benchmark.data.checkpoint=/c/m.h5",
                                        "experiment.job_walltime=65"};
  CHECK(error_of([&] { plan_of(base, closed); }).find(
            "--set experiment.job_walltime=65: experiment.job_walltime: closed division: the per-run limit 1 (derived: (job 65 - 5) / "
            "NEXP 10 - 5 minutes) is shorter than any run can take") == 0);
  // max_steps caps what the run trains: 10 steps x 768 samples need 0.24 s, so one minute is enough
  std::vector<std::string> capped = closed;
  capped.push_back("benchmark.max_steps=10");
  CHECK_NOTHROW(plan_of(base, capped));
}
