// `harness run` without --dry-run: executes a Plan (NEXP experiments, cache clearing, launch, logs,
// compliance check per experiment, score, summary). Implemented in harness/run/ (library bert_harness_run).
#pragma once
#include <string>

#include "harness/plan/plan.h"

namespace bert::harness {

struct RunOptions {
  std::string resume_dir;     // --resume OUTDIR: continue a set, skipping finished experiments
  bool progress_tty = false;  // live progress line when stdout is a terminal
};

// Returns the process exit code: 0 set completed (scored or not), 1 experiments failed, 2 user error
// (e.g. output dir not writable), 130/143 interrupted by SIGINT/SIGTERM (logs kept, summary says so).
int run_experiments(const Plan& plan, const RunOptions& opts);

}  // namespace bert::harness
