// `harness probe`'s projection (issue 48): the RCP only for BERT-Large against the closed target; otherwise
// the samples the probe run took to reach the system's own target, or those stated with --samples, or no
// projection and why. And the probe run's log read for where it converged.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "harness/submit/probe.h"
#include "harness/submit/probe_measure.h"

using namespace bert::harness;

namespace {

// 2000 samples/s, evaluations of 5 s, init 60 s, NEXP 10, the system's cadence from its configuration.
ProbeInputs inputs(double global_batch, long long eval_start, long long eval_interval) {
  ProbeInputs in;
  in.samples_per_s = 2000;
  in.init_s = 60;
  in.eval_s = 5;
  in.global_batch = global_batch;
  in.eval_start_cfg = eval_start;
  in.eval_interval_cfg = eval_interval;
  in.nexp = 10;
  in.target = 0.72;
  return in;
}

}  // namespace

TEST_CASE("BERT-Large against the closed target: the RCP of the global batch") {
  ProbeProjection p;
  project(inputs(448, -1, -1), p);
  CHECK(p.basis == "rcp");
  CHECK(p.rcp == "batch 448: RCP found");
  CHECK(p.rcp_mean_samples == doctest::Approx(2414421));
  // 2414421 / 2000 + 16 evaluations x 5 s (MLPerf's cadence for 448: every 150000 from 150000)
  CHECK(p.projected_minutes == doctest::Approx((2414421.0 / 2000 + 16 * 5) / 60));
}

TEST_CASE("another model or target, nothing measured or stated: no projection, and why") {
  ProbeInputs in = inputs(16, 1024, 1024);
  in.target = 0.5;
  in.no_rcp = "benchmark.model tiny, not BERT-Large (large); benchmark.target_accuracy 0.5, not the closed division's 0.720";
  ProbeProjection p;
  project(in, p);
  CHECK(p.basis.empty());
  CHECK(p.rcp.empty());
  CHECK(p.run_walltime.empty());
  CHECK(p.set_lines.empty());
  CHECK(p.note.find("benchmark.model tiny, not BERT-Large") == 0);
  CHECK(p.note.find("the probe run did not reach it: no projection (--samples N states them") != std::string::npos);
}

TEST_CASE("another model that converged in the probe run: its own samples, on the system's evaluation cadence") {
  ProbeInputs in = inputs(16, 1024, 1024);
  in.target = 0.5;
  in.no_rcp = "benchmark.model tiny, not BERT-Large (large)";
  in.converged_samples = 2080;  // evaluated every 160 samples in the probe run
  ProbeProjection p;
  project(in, p);
  CHECK(p.basis == "measured");
  CHECK(p.target == 0.5);
  // the system evaluates at 1024, 2048, 3072: it stops at 3072, after 3 evaluations
  CHECK(p.rcp_mean_samples == 3072);
  CHECK(p.rcp_max_samples == 3072);
  CHECK(p.rcp == "the probe run reached target 0.5 at 2080 samples; the system evaluates at 1024 + k x 1024: 3072 samples");
  CHECK(p.projected_minutes == doctest::Approx((3072.0 / 2000 + 3 * 5) / 60));
  // per run: ceil((60 + 16.536) x 1.25 / 60) = 2 minutes; job: 5 + 10 x (2 + 5) = 75
  CHECK(p.run_walltime == "2");
  CHECK(p.job_walltime == "75");
}

TEST_CASE("samples stated with --samples win over the RCP and the measurement") {
  ProbeInputs in = inputs(448, -1, -1);
  in.stated_samples = 3000000;
  ProbeProjection p;
  project(in, p);
  CHECK(p.basis == "stated");
  CHECK(p.rcp == "3000000 samples to reach target 0.72, stated with --samples");
  CHECK(p.rcp_mean_samples == 3000000);
}

TEST_CASE("the probe run's log: converged at the last evaluation before a successful run_stop, else not") {
  const std::string head =
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1000, \"event_type\": \"INTERVAL_START\", \"key\": \"init_start\", \"value\": null, \"metadata\": {}}\n"
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 2000, \"event_type\": \"INTERVAL_START\", \"key\": \"run_start\", \"value\": null, \"metadata\": {}}\n"
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 3000, \"event_type\": \"POINT_IN_TIME\", \"key\": \"eval_accuracy\", \"value\": 0.3, \"metadata\": {\"epoch_num\": 160}}\n"
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 4000, \"event_type\": \"POINT_IN_TIME\", \"key\": \"eval_accuracy\", \"value\": 0.55, \"metadata\": {\"epoch_num\": 320}}\n";
  const std::string success =
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 4100, \"event_type\": \"INTERVAL_END\", \"key\": \"run_stop\", \"value\": null, \"metadata\": {\"status\": \"success\"}}\n";
  const std::string aborted =
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 4100, \"event_type\": \"INTERVAL_END\", \"key\": \"run_stop\", \"value\": null, \"metadata\": {\"status\": \"aborted\"}}\n";
  CHECK(measure_throughput(head + success, 1).converged_samples == 320);
  CHECK(measure_throughput(head + aborted, 1).converged_samples == -1);
  CHECK(measure_throughput(head, 1).converged_samples == -1);
}
