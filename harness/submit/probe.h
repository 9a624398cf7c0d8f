// `harness probe SYSTEM.yaml`: a short real run of the system (our trainer, or its external one) in
// <experiment.output_dir>/probe/<datestamp>/, its throughput after warm-up from the MLPerf log
// (probe_measure.h), and from the samples the system trains to its target the projected time to train, the
// per-run and job walltimes (margin named) and the --set lines that apply them; written to
// <experiment.output_dir>/probe/probe.json, which the dry-run shows. The samples: --samples when stated;
// else the RCP of the global batch where the RCPs apply (BERT-Large against the closed target 0.720); else
// what the probe run took to reach the system's own target; else no projection, and why.
//
// The probe run: one experiment, open division (it is no result), no cache clear, stopped by its
// per-run walltime (--seconds). Our trainer is also told to log a point every --steps-per-point steps
// (eval cadence) for --points points after --warmup, and not to stop at the target; where the RCPs do not
// apply and no --samples is stated, it keeps the system's target and max_steps, so it stops where it converges,
// and logs --points points per interval of the system's own evaluation cadence.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "harness/plan/plan.h"
#include "harness/plan/probe_projection.h"

namespace bert::harness {

struct ProbeOptions {
  std::string system;                        // the YAML
  std::vector<std::string> sets;             // --set key=value, as for harness run
  std::map<std::string, std::string> env;    // process environment (overrides, SLURM_*)
  SourceInfo source;
  int seconds = 600;                         // the probe run's walltime
  int warmup = 1;                            // points (or throughput values) left out at the start
  int points = 5;                            // our trainer: measured points after the warm-up
  int steps_per_point = 10;                  // our trainer: steps between two points
  double margin = 0.25;                      // per-run walltime = (init + slowest RCP run) x (1 + margin)
  double samples = 0;                        // --samples: samples to reach the system's target (0 = not stated)
  bool preflight = true;                     // the probe run's preflight (warn)
};

struct ProbeOutcome {
  bool measured = false;
  std::string why_not;                       // when !measured
  ProbeProjection projection;                // when measured
  std::string file;                          // probe.json written
};

// Throws UserError for a bad system/--set (as harness run does).
ProbeOutcome run_probe(const ProbeOptions& o);

// The projection from a measurement, the system's plan and its configuration (pure; tested alone): from the
// stated samples, else the RCP where it applies, else the converged samples; none (out.basis "") otherwise.
struct ProbeInputs {
  double samples_per_s = 0, init_s = 0, eval_s = 0;
  double global_batch = 0;
  long long eval_start_cfg = -1, eval_interval_cfg = -1;  // benchmark.eval_*_samples (-1: MLPerf's)
  int nexp = 1;
  double margin = 0.25;
  double target = 0;                     // the system's benchmark.target_accuracy
  std::string no_rcp;                    // why the RCPs do not apply ("" = they do; closed_division.h)
  double stated_samples = 0;             // --samples (0 = none)
  double converged_samples = -1;         // where the probe run reached the target (-1 = it did not)
};
void project(const ProbeInputs& in, ProbeProjection& out);

}  // namespace bert::harness
