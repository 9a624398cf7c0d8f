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
  std::string profile;                // "" = from run.sub / run_and_time.sh beside the config, else the variables (launch_reader.h)
  std::string launcher_script;        // Samsung-style launcher holding hosts=(...) and NGPU ("" = run_multinode.sh if there)
  std::string systems_dir;            // the shipped systems/ (bases are extended from there)
  std::string output;                 // where the YAML goes ("" = stdout); extends is relative to it
  std::string submitter;              // system.submitter ("" = none given: a closed import lacks it)
  std::string submitter_from;         // where it came from, for the table ("--submitter", "BERT_SUBMITTER")
  std::string division;               // experiment.division: closed | open ("" = the base's)
  std::string topology;               // hwloc XML of the real node ("" = the base's, or assumed from the variables)
  std::vector<std::string> sets;      // key.path=value written into the YAML last (as harness run --set)
  BashEvalOptions bash;
};

struct ImportRow {
  std::string variable, value;
  std::string status;                 // mapped | passed | ignored
  std::string target;                 // the key (mapped, passed) or the reason (ignored)
};

// A key the imported YAML cannot plan without, and what gives it (--submitter ORG, --env NAME=DIR, ...).
struct MissingItem {
  std::string key, why;
  std::string stand_in;  // a value the plan can take in its place to find what else is wrong ("" = none can)
};

struct ImportResult {
  std::string yaml;                   // for ImportOptions::output (relative paths from its folder)
  std::string yaml_for_plan;          // the same with extends and --topology absolute: plans from any folder
  std::string profile, profile_why;   // which implementation's conventions, and which file said so
  std::vector<std::string> warnings;  // e.g. the launch was guessed
  std::vector<ImportRow> rows;        // in variable order
  std::vector<std::string> notes;
  std::vector<std::string> origins;   // values not from the config: "KEY: from ..." (base, profile, default)
  std::vector<MissingItem> missing;   // the YAML does not plan until these are given
};

// Throws UserError (file:line for bash errors, the variable for a value that cannot be mapped). What the
// YAML lacks to plan is in `missing` (all of it, not the first), not thrown.
ImportResult import_config(const ImportOptions& opts);

// "  KEY: WHY" per missing item, for the error that lists them all.
std::string missing_lines(const ImportResult& r);

// What the plan made of the node, to hold the config's topology variables against.
struct NodeFacts {
  std::string source;  // the topology's description (XML path, synthetic string)
  int packages = 0, cores = 0, pus = 0, gpus = 0;
};
// One warning per topology variable (DGXNSOCKET, DGXSOCKETCORES, DGXHT, DGXNGPU) the node contradicts.
std::vector<std::string> topology_contradictions(const ImportResult& r, const NodeFacts& node);

// The table `harness import` prints: one line per variable, grouped mapped / passed through / ignored,
// then where every value the config did not give comes from, the notes and the warnings.
std::string import_table(const ImportResult& r);

}  // namespace bert::harness
