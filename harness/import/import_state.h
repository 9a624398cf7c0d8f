// What one `harness import` builds up while it maps a config (inside harness/import only): the config's
// variables as bash exported them, the implementation's profile, the YAML being written, one table row per
// variable, and what the YAML still lacks. Each section of the import (import_*.cpp) takes it and adds to it.
#pragma once
#include <yaml-cpp/yaml.h>

#include <map>
#include <optional>
#include <string>

#include "harness/config/config.h"
#include "harness/import/config_import.h"
#include "harness/import/launch_reader.h"
#include "harness/import/system_bases.h"
#include "harness/plan/trainer_profiles.h"

namespace bert::harness {

// Writes `value` at the dotted `path` (trainer.env.NAME / env.NAME: the rest after the group is one name).
void set_key(YAML::Node root, const std::string& path, const YAML::Node& value);

struct ImportState {
  ImportOptions o;
  std::map<std::string, std::string> vars;  // exported by the config (and its helpers)
  LaunchChoice launch;
  const TrainerProfile* prof = nullptr;
  bool nvidia = false;                      // the implementation's own program runs once per rank
  std::string dgxsystem;                    // DGXSYSTEM, else the config's file name
  const SystemBase* base = nullptr;         // the shipped hardware base (nullptr = none describes it)
  std::string base_file;                    // what the YAML extends, under systems/ (the base, or the phase-2 settings)
  std::optional<Config> base_cfg;           // ... loaded: what the YAML gets from it
  YAML::Node y{YAML::NodeType::Map};
  std::map<std::string, ImportRow> rows;    // by variable
  ImportResult r;

  bool has(const std::string& var) const { return vars.count(var) && !vars.at(var).empty(); }
  void row(const std::string& var, const std::string& status, const std::string& target) {
    rows[var] = {var, vars.count(var) ? vars.at(var) : "", status, target};
  }
  void set(const std::string& key, const YAML::Node& value) { set_key(y, key, value); }
  void map_to(const std::string& var, const std::string& key, const std::string& value) {
    set(key, YAML::Node(value));
    row(var, "mapped", key);
  }
  void lacks(const std::string& key, const std::string& why, const std::string& stand_in = "") {
    r.missing.push_back({key, why, stand_in});
  }
  bool closed() const;  // the division the YAML will plan in (--division or --set, else what it extends)
  // A key's value as the YAML will have it: written by the import, else what it extends ("" = neither).
  std::string value_of(const std::string& key) const;
  // What the import wrote at `key` ("" for a null or a list), nullopt when it wrote nothing there.
  std::optional<std::string> written(const std::string& key) const;
};

// The sections of import_config, in the order it runs them.
BashEvalResult source_config(ImportOptions& o, std::vector<std::string>& notes);  // import_sources.cpp
std::string alias_dgx_names(std::map<std::string, std::string>& vars);
std::string default_launcher_script(const ImportOptions& o);
void import_node(ImportState& s);            // import_node.cpp: extends, an assumed node, --topology
void check_gpu_count(ImportState& s);
void check_missing(ImportState& s);          // import_who.cpp: every key the YAML lacks to plan
void import_who(ImportState& s);             // import_who.cpp: submitter, division (what no config says)
void import_sets(ImportState& s);            // ... --set, last
void import_walltimes(ImportState& s);       // import_walltime.cpp
void import_variables(ImportState& s);       // import_variables.cpp: the profile's rows, paths, image, flags
void import_rendezvous(ImportState& s);      // ... MASTER_ADDR / MASTER_PORT
void import_launcher_script(ImportState& s);
void import_rest(ImportState& s);            // ... every other variable: ignored, fixed, NCCL_*, passed
void import_external(ImportState& s);        // ... the implementation's own program (trainer.kind external)

}  // namespace bert::harness
