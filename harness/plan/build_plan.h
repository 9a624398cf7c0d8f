// Config -> Plan: topology and per-rank binding (binding/), rank environment, the exact commands
// (setup, cache clear, launch), the trainer run config and the MLPerf systems JSON.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "harness/config/config.h"
#include "harness/plan/plan.h"

namespace bert::harness {

struct BuildOptions {
  std::string bin_dir;                        // host dir of bind/trainer/bert-data ("" = found by host_tool)
  std::map<std::string, std::string> env;     // process environment (SLURM_JOB_ID, ...)
  std::function<uint64_t()> random_seed;      // seed source for seed_policy random (default: random_device)
};

// Throws ConfigError naming file:line:col and the key for every user-caused problem, including the
// binding planner's (a BindingError's field is mapped to where that key is written).
Plan build_plan(const Config& cfg, const BuildOptions& opts);

// The directory of the running executable (/proc/self/exe).
std::string executable_dir();
// A host tool (bind, trainer, bert-data): bin_dir/name when bin_dir is given, else found next to this
// executable (or in bin/ below it, or one level up from a bin/ it sits in: build trees).
std::string host_tool(const std::string& bin_dir, const std::string& name);

// Resolved seeds for `policy` ("random" | "fixed:<n>" | "sequence:<base>"); throws std::invalid_argument.
std::vector<uint64_t> resolve_seeds(const std::string& policy, int nexp, const std::function<uint64_t()>& random);

// The trainer run config (trainer/run_config.h keys) and the MLPerf systems JSON.
struct TrainerInputs {
  std::string train_dir, eval_file, checkpoint;  // as the trainer sees them (container paths inside pyxis)
  std::string rendezvous_dir;                    // local launches only
  std::string backend;                           // cpu | cuda (auto resolved)
  std::string precision;                         // fp32 (cpu) | bf16 (cuda) (auto resolved)
  bool clip_after_allreduce = false;             // always on the cuda backend
};
json make_trainer_config(const Config& cfg, const Plan& plan, const TrainerInputs& in);
json make_system_json(const Config& cfg, const Plan& plan);

}  // namespace bert::harness
