// Config -> Plan: topology and per-rank binding (binding/), the launcher's hosts and lines
// (harness/launch/), rank environment, the exact commands (setup, cache clear, launch), the trainer
// run config and the MLPerf systems JSON.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "harness/config/config.h"
#include "harness/plan/plan.h"

namespace bert::harness {

struct BuildOptions {
  std::string bin_dir;                        // host dir of bind/trainer/bert-data ("" = found by host_tool)
  std::map<std::string, std::string> env;     // process environment (SLURM_JOB_ID, ...)
  std::function<uint64_t()> random_seed;      // seed source for seed_policy random (default: random_device)
  SourceInfo source;                          // the harness's build, recorded in the plan
  std::vector<std::string> exclude;           // --exclude: nodes the set goes on without (Plan::excluded)
  std::vector<std::string> sets;              // the --set lines the Config was loaded with (Plan::sets)
};

// Throws UserError naming file:line:col and the key for every user-caused problem, including the
// binding planner's and the launcher's (a field-only error is placed where that key is written).
Plan build_plan(const Config& cfg, const BuildOptions& opts);

}  // namespace bert::harness
