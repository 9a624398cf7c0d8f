// The last `harness probe` of a system (harness/submit/probe.cpp writes it to
// <experiment.output_dir>/probe/probe.json): the throughput it measured and the walltimes it projects
// from the samples this system trains (the RCP for BERT-Large against the closed target; else measured or
// stated). build_plan reads it back so the dry-run shows it (Plan::probe), only for the plan it was made for.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bert::harness {

struct ProbeProjection {
  std::string measured_at;          // "2026-11-28 01:40:12 UTC"
  std::string config_name;          // what was probed: config, ranks, global batch
  int world_size = 0;
  double global_batch = 0;
  std::string log;                  // the probe run's MLPerf log
  std::string method;               // "points" | "values" (harness/submit/probe_measure.h)
  double samples_per_s = 0;         // after warm-up, evaluations left out
  int measured = 0, dropped = 0;    // intervals or values used, warm-up ones left out
  double init_s = 0;                // init_start -> run_start
  double eval_s = 0;                // one evaluation
  std::string basis;                // where the samples to train come from: "rcp" (BERT-Large, the closed target),
                                    // "measured" (the probe run reached the system's own target), "stated"
                                    // (--samples); "" = none: no projection (note says why)
  double target = 0;                // the accuracy those samples reach
  std::string rcp;                  // the basis in words: which RCP, or the measured/stated samples ("" = none)
  double rcp_mean_samples = 0, rcp_max_samples = 0;  // samples to train: typical and slowest (one number when
                                                     // measured or stated)
  long long eval_start = 0, eval_interval = 0;  // the system's cadence (samples)
  double projected_minutes = 0;     // run_start -> run_stop at the RCP mean, evaluations included
  double slowest_minutes = 0;       // at the slowest reference run (the RCP's largest samples)
  double margin = 0.25;             // over init + slowest, for the per-run walltime
  int nexp = 0;
  std::string run_walltime, job_walltime;
  std::vector<std::string> set_lines;  // "--set experiment.run_walltime=49", ...
  std::string note;                 // why there is no projection, or what to keep in mind

  nlohmann::ordered_json to_json() const;
  static ProbeProjection from_json(const nlohmann::ordered_json& j);  // throws json::exception
};

// The probe file of a system's output directory (<output_dir>/probe/probe.json).
std::string probe_file(const std::string& output_dir);
// nullopt when there is none; throws std::runtime_error naming the file when it cannot be read.
std::optional<ProbeProjection> load_probe(const std::string& path);

}  // namespace bert::harness
