// The program every rank runs (trainer:): our trainer, or an external implementation described by a
// trainer profile (trainer_profiles.h), its argv, working directory, environment and log source.
#pragma once
#include <map>
#include <string>

#include "harness/config/config.h"
#include "harness/plan/plan.h"
#include "harness/plan/trainer_profiles.h"

namespace bert::harness {

// The profile the system names (generic when none is named; the builtin trainer's mounts are generic's).
// Throws UserError at trainer.profile for an unknown name.
const TrainerProfile& trainer_profile(const Config& cfg);

// kind, profile, per-experiment variable names, log source; checks the trainer.* keys together.
TrainerPlan make_trainer_plan(const Config& cfg);

// The data, checkpoint and results paths as a rank sees them (container mounts, or host paths).
struct RankPaths {
  std::string train, eval, checkpoint, results;
};

// Every rank's environment for an external trainer: the profile's fixed env, its path variables, its
// hyperparameter variables (from their system keys; `resolved` holds keys the plan resolved itself,
// e.g. nodes.gpus_per_node), NEXP, then trainer.env verbatim on top.
std::map<std::string, std::string> external_env(const Config& cfg, const TrainerProfile& p, const RankPaths& seen,
                                                const std::map<std::string, std::string>& resolved, int nexp);

}  // namespace bert::harness
