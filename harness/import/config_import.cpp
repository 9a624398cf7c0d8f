// `harness import`: the sections of one import (import_state.h) in order, then where every value the config
// did not give comes from, and the YAML (with a header of notes) for the output and for planning.
#include "harness/import/config_import.h"

#include <filesystem>

#include "harness/config/schema.h"
#include "harness/import/import_state.h"

namespace bert::harness {
namespace fs = std::filesystem;

void set_key(YAML::Node root, const std::string& path, const YAML::Node& value) {
  size_t dot = path.find('.');
  if (dot == std::string::npos) {
    root[path] = value;
    return;
  }
  // trainer.env.NAME / env.NAME: the rest is one name
  const std::string head = path.substr(0, dot);
  YAML::Node child = root[head];
  set_key(child, path.substr(dot + 1), value);
}

namespace {

// The keys the YAML gets from the files it extends (a hardware base, the phase-2 settings), one line per
// file; every other key is the schema's default.
void describe_origins(ImportState& s) {
  if (!s.base_cfg) return;
  const fs::path systems = fs::absolute(s.o.systems_dir).lexically_normal();
  std::map<std::string, std::string> by_file;  // file under systems/ -> its keys
  std::vector<std::string> order;
  for (const SchemaEntry& e : schema()) {
    if (!s.base_cfg->given(e.path) || s.written(e.path)) continue;
    const std::string file = fs::relative(fs::absolute(s.base_cfg->loc(e.path).file).lexically_normal(), systems).string();
    if (!by_file.count(file)) order.push_back(file);
    by_file[file] += (by_file[file].empty() ? "" : ", ") + e.path;
  }
  for (const std::string& file : order)
    s.r.origins.push_back(by_file[file] + ": from " + file +
                          (s.base && file == s.base->file ? " (the hardware base for " + s.base->prefix + ")" : ""));
  s.r.origins.push_back("every other key: the schema's default (harness schema lists them)");
}

std::string emitted(const YAML::Node& y, const std::string& header) {
  YAML::Emitter em;
  em << y;
  return header + "\n" + em.c_str() + "\n";
}

}  // namespace

ImportResult import_config(const ImportOptions& opts) {
  ImportState s;
  s.o = opts;
  std::vector<std::string> first_notes;
  if (!s.o.bash.env.count("NEXP")) {  // the set's NEXP: configs size WALLTIME with it (${NEXP:-1} otherwise)
    s.o.bash.env["NEXP"] = schema_find("experiment.nexp")->def;
    first_notes.push_back("NEXP=" + s.o.bash.env["NEXP"] + " while sourcing (the set's experiment.nexp; --nexp N to change)");
  }
  const BashEvalResult ev = source_config(s.o, first_notes);
  s.vars = ev.exported;
  const std::string alias = alias_dgx_names(s.vars);
  s.launch = read_launch(s.o.config, s.vars, s.o.profile);
  s.prof = find_trainer_profile(s.launch.profile);
  s.nvidia = s.launch.per_rank;  // a per-rank program to run (not Samsung's ssh, not PaddlePaddle's orterun)
  s.r.profile = s.launch.profile;
  s.r.profile_why = s.launch.why;
  s.r.notes = first_notes;
  if (s.launch.guessed) s.r.warnings.push_back("the implementation's launch was guessed: " + s.launch.why);
  if (!alias.empty()) s.r.notes.push_back(alias);
  for (const std::string& l : ev.ignored_lines) s.r.notes.push_back(l + " (a redacted line; skipped)");
  const std::string stem = fs::path(s.o.config).stem().string();
  s.dgxsystem = s.has("DGXSYSTEM") ? s.vars.at("DGXSYSTEM") : stem.substr(stem.starts_with("config_") ? 7 : 0);
  s.base = find_system_base(s.dgxsystem);

  import_node(s);
  import_who(s);
  import_variables(s);
  import_walltimes(s);
  import_rendezvous(s);
  import_launcher_script(s);
  import_rest(s);
  import_external(s);
  import_sets(s);
  check_missing(s);
  describe_origins(s);
  for (auto& [k, row] : s.rows) s.r.rows.push_back(row);

  std::string header = "# Imported by `harness import` from " + fs::absolute(s.o.config).lexically_normal().string() + " (profile " +
                       s.prof->name + ")";
  for (const std::string& n : s.r.notes) header += "\n# note: " + n;
  for (const std::string& n : s.r.origins) header += "\n# not from the config: " + n;
  s.r.yaml = emitted(s.y, header);
  YAML::Node anywhere = YAML::Clone(s.y);
  anywhere["extends"] = fs::absolute(fs::path(s.o.systems_dir) / s.base_file).lexically_normal().string();
  if (!s.o.topology.empty()) anywhere["topology"]["xml"] = fs::absolute(s.o.topology).lexically_normal().string();
  s.r.yaml_for_plan = emitted(anywhere, header);
  return s.r;
}

std::string missing_lines(const ImportResult& r) {
  std::string out;
  for (const MissingItem& m : r.missing) out += "  " + m.key + ": " + m.why + "\n";
  return out;
}

std::vector<std::string> topology_contradictions(const ImportResult& r, const NodeFacts& node) {
  std::vector<std::string> out;
  auto value = [&](const std::string& var) -> long {
    for (const ImportRow& x : r.rows)
      if (x.variable == var) try {
          size_t used = 0;
          const long v = std::stol(x.value, &used);
          return used == x.value.size() ? v : -1;
        } catch (const std::exception&) {
          return -1;
        }
    return -1;
  };
  auto differ = [&](const std::string& var, long in_config, long in_base, const std::string& what) {
    if (in_config >= 0 && in_config != in_base)
      out.push_back(var + "=" + std::to_string(in_config) + " but " + node.source + " has " + std::to_string(in_base) + " " + what +
                    " (the plan follows the topology; run_and_time's bindpcie reads the node itself)");
  };
  differ("DGXNSOCKET", value("DGXNSOCKET"), node.packages, "socket(s)");
  if (node.packages > 0) differ("DGXSOCKETCORES", value("DGXSOCKETCORES"), node.cores / node.packages, "cores per socket");
  if (node.cores > 0) differ("DGXHT", value("DGXHT"), node.pus / node.cores, "hardware thread(s) per core");
  if (value("DGXNGPU") > node.gpus) differ("DGXNGPU", value("DGXNGPU"), node.gpus, "GPU(s)");  // fewer: a part of the node
  return out;
}

std::string import_table(const ImportResult& r) {
  std::string out = "profile " + r.profile + ": " + r.profile_why + "\n";
  size_t w = 8;
  for (const ImportRow& x : r.rows) w = std::max(w, x.variable.size());
  for (const char* status : {"mapped", "passed", "ignored"}) {
    std::string title = std::string(status) == "passed" ? "passed through (verbatim)" : status;
    out += title + "\n";
    for (const ImportRow& x : r.rows) {
      if (x.status != status) continue;
      std::string value = x.value.size() > 40 ? x.value.substr(0, 37) + "..." : x.value;
      out += "  " + x.variable + std::string(w + 1 - x.variable.size(), ' ') + "= " + value +
             std::string(value.size() < 40 ? 41 - value.size() : 1, ' ') + "-> " + x.target + "\n";
    }
  }
  if (!r.origins.empty()) out += "not from the config\n";
  for (const std::string& o : r.origins) out += "  " + o + "\n";
  for (const std::string& n : r.notes) out += "note: " + n + "\n";
  for (const std::string& w : r.warnings) out += "warning: " + w + "\n";
  return out;
}

}  // namespace bert::harness
