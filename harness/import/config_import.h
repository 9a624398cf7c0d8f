// `harness import CONFIG.sh`: the variables bash exported (bash_eval.h) mapped onto system keys through
// the trainer profile's variable rows (harness/plan/trainer_profiles.cpp) and the run-config key table,
// every other exported variable kept verbatim in trainer.env, and a system YAML that extends the shipped
// hardware base its DGXSYSTEM names (system_bases.cpp).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "harness/import/bash_eval.h"

namespace bert::harness {

struct ImportOptions {
  std::string config;                 // config_<SYSTEM>.sh
  std::string profile;                // "" = from the variables (DGXNGPU: nvidia-pytorch; GRAD_STEPS: samsung-pytorch)
  std::string launcher_script;        // Samsung-style launcher holding hosts=(...) and NGPU ("" = run_multinode.sh if there)
  std::string systems_dir;            // the shipped systems/ (bases are extended from there)
  std::string output;                 // where the YAML goes ("" = stdout); extends is relative to it
  std::string submitter;              // system.submitter ("" = the base's, if any)
  std::string division;               // experiment.division: closed | open ("" = the base's)
  BashEvalOptions bash;
};

struct ImportRow {
  std::string variable, value;
  std::string status;                 // mapped | passed | ignored
  std::string target;                 // the key (mapped, passed) or the reason (ignored)
};

struct ImportResult {
  std::string yaml;
  std::vector<ImportRow> rows;        // in variable order
  std::vector<std::string> notes;
};

// Throws UserError (file:line for bash errors, the variable for a value that cannot be mapped).
ImportResult import_config(const ImportOptions& opts);

// The table `harness import` prints: one line per variable, grouped mapped / passed through / ignored.
std::string import_table(const ImportResult& r);

}  // namespace bert::harness
