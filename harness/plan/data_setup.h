// The training data of a Plan: the system's data paths (env DATADIR/EVALDIR/CHECKPOINTDIR), or
// synthetic data made by a setup step (`bert-data synth`, run only while its output is missing).
#pragma once
#include <string>

#include "harness/config/config.h"
#include "harness/plan/plan.h"

namespace bert::harness {

struct DataPaths {  // host paths
  std::string train_dir, eval_dir, checkpoint;
};

// With benchmark.synthetic, plan.setup gets the `bert-data synth` step. Needs plan.experiment.
DataPaths resolve_data(const Config& cfg, Plan& plan, const std::string& bin_dir);

}  // namespace bert::harness
