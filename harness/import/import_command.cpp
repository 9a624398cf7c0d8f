#include "harness/import/import_command.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>

#include "common/cli_parse.h"
#include "harness/config/config.h"
#include "harness/import/config_import.h"
#include "harness/plan/build_plan.h"
#include "process/child_process.h"
#include "harness/run/output_tree.h"

namespace bert::harness {
namespace fs = std::filesystem;
namespace {

struct ImportCli : CliSubcommand<ImportCli> {
  ImportOptions opts;
  std::vector<std::string> env;  // NAME=VALUE
  std::string nexp;
  bool maxq = false, minedp = false, power = false;
};

// systems/ next to the build or install tree of this binary.
std::string find_systems_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec).parent_path();
  for (const fs::path& p : {exe / "../systems", exe / "../../systems", exe / "../share/bert-harness/systems"})
    if (fs::is_directory(p / "common", ec)) return fs::weakly_canonical(p).string();
  return "systems";
}

// The file name the YAML goes by: the output's, else the config's system and shape (config_X_1x8x48x1.sh:
// X_1x8x48x1.yaml), which the plan reads as its config name.
std::string yaml_name(const ImportOptions& o) {
  if (!o.output.empty()) return fs::path(o.output).filename().string();
  std::string stem = fs::path(o.config).stem().string();
  if (stem.rfind("config_", 0) == 0) stem.erase(0, 7);
  return stem + ".yaml";
}

// The import planned from a scratch folder under its own name (yaml_for_plan has no relative path), with a
// stand-in for each key it lacks so that the plan's own complaints show too; "" in `error` when it plans,
// else the plan's error naming `shown` for the scratch file.
Plan plan_import(const ImportResult& r, const ImportOptions& o, const std::map<std::string, std::string>& env,
                 const std::string& shown, std::string& error) {
  Overrides stand_ins;
  for (const MissingItem& m : r.missing) {
    if (m.stand_in.empty()) return {};  // nothing to plan with (no node)
    stand_ins.sets.push_back(m.key + "=" + m.stand_in);
  }
  std::string tmpl = (fs::temp_directory_path() / "harness-import-plan-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw UserError(Loc{fs::temp_directory_path().string()}, "", "cannot make a scratch folder");
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{tmpl};
  const std::string scratch = tmpl + "/" + yaml_name(o);
  write_file_atomic(scratch, r.yaml_for_plan);
  BuildOptions bo;
  bo.env = env;
  try {
    return build_plan(Config::load(scratch, stand_ins), bo);
  } catch (const UserError& e) {
    error = e.what();
    for (size_t at; (at = error.find(scratch)) != std::string::npos;) error.replace(at, scratch.size(), shown);
    return {};
  }
}

}  // namespace

void register_import_command(CLI::App& app) {
  ImportCli& c = ImportCli::instance();
  c.cmd = app.add_subcommand("import", "turn a config_<SYSTEM>.sh (sourced by bash) into a system YAML that runs the same");
  c.cmd->add_option("config", c.opts.config, "the config_*.sh")->required();
  c.cmd->add_option("-o,--output", c.opts.output, "write the YAML here (default: stdout; the table then goes to stderr)");
  c.cmd->add_option("--nexp", c.nexp, "NEXP while sourcing (walltimes depend on it; default: $NEXP, else the set's experiment.nexp, 10)");
  c.cmd->add_flag("--maxq", c.maxq, "SET_MAXQ_CLK=1 while sourcing");
  c.cmd->add_flag("--minedp", c.minedp, "SET_MINEDP_CLK=1 while sourcing");
  c.cmd->add_flag("--power", c.power, "MLPERF_POWER_TRAIN_AFTER_RUN_STOP=1 while sourcing");
  c.cmd->add_option("--env", c.env, "NAME=VALUE set before sourcing (data paths, CONT), repeatable");
  c.cmd->add_option("--source-first", c.opts.bash.source_first, "a file sourced before the config (a site's env.sh), repeatable");
  c.cmd->add_option("--submitter", c.opts.submitter, "system.submitter: the submitting organization (the closed division needs one; "
                                                      "default: $BERT_SUBMITTER, the site's; never a hardware base's)");
  c.cmd->add_option("--division", c.opts.division, "experiment.division: closed or open (default: the base's, closed)");
  c.cmd->add_option("--topology", c.opts.topology, "hwloc XML of the real node (lstopo --of xml): instead of the base's, or "
                                                    "of the one assumed from DGXNGPU/DGXNSOCKET/... when no base describes it");
  c.cmd->add_option("--set", c.opts.sets, "key.path=value written into the YAML over what the config gave, repeatable");
  c.cmd->add_option("--profile", c.opts.profile, "trainer profile (default: from the variables)");
  c.cmd->add_option("--launcher-script", c.opts.launcher_script, "a launcher script holding hosts=(...) and NGPU (default: run_multinode.sh beside the config)");
  c.cmd->add_option("--systems", c.opts.systems_dir, "the shipped systems/ folder (default: next to this binary)");
  c.cmd->add_option("--timeout", c.opts.bash.timeout_s, "seconds bash may take to source it (default 10)");
}

int run_import_if_parsed() {
  ImportCli& c = ImportCli::instance();
  if (!c.given()) return -1;
  ImportOptions o = c.opts;
  if (o.systems_dir.empty()) o.systems_dir = find_systems_dir();
  const auto penv = process_environment();
  std::string nexp = c.nexp;
  if (nexp.empty() && penv.count("NEXP")) nexp = penv.at("NEXP");
  if (!nexp.empty()) o.bash.env["NEXP"] = nexp;
  if (c.maxq) o.bash.env["SET_MAXQ_CLK"] = "1";
  if (c.minedp) o.bash.env["SET_MINEDP_CLK"] = "1";
  if (c.power) o.bash.env["MLPERF_POWER_TRAIN_AFTER_RUN_STOP"] = "1";
  for (const std::string& kv : c.env) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::cerr << "harness import: --env " << kv << ": expected NAME=VALUE\n";
      return 2;
    }
    o.bash.env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  if (o.submitter.empty() && penv.count("BERT_SUBMITTER") && !penv.at("BERT_SUBMITTER").empty()) {
    o.submitter = penv.at("BERT_SUBMITTER");
    o.submitter_from = "BERT_SUBMITTER, the site's default";
  }
  try {
    const auto t0 = std::chrono::steady_clock::now();
    const ImportResult r = import_config(o);
    std::ostream& table = o.output.empty() ? std::cerr : std::cout;
    table << import_table(r);
    // It must plan as it is (the dry-run's checks) before anything is written.
    // A YAML that does not plan is never taken for one that does: not written under its name; OUT.partial
    // holds it as far as it goes (the lines the plan names are its lines).
    const std::string partial = o.output.empty() ? "" : o.output + ".partial";
    std::string plan_error;
    const Plan plan = plan_import(r, o, penv, partial.empty() ? yaml_name(o) : partial, plan_error);
    if (!r.missing.empty() || !plan_error.empty()) {
      if (!partial.empty()) write_file_atomic(partial, r.yaml);
      std::cerr << "harness import: " << (o.output.empty() ? "no YAML printed" : o.output + " not written")
                << ": it does not plan yet; give what it lacks (all of it here) and import again:\n"
                << missing_lines(r) << (plan_error.empty() ? "" : "  " + plan_error + "\n")
                << (partial.empty() ? "" : "harness import: the YAML as far as it goes: " + partial + "\n");
      return 2;
    }
    if (o.output.empty()) {
      std::cout << r.yaml;
      return 0;
    }
    write_file_atomic(o.output, r.yaml);
    std::error_code gone;
    fs::remove(partial, gone);  // an earlier attempt's
    if (!plan.nodes.empty() && !plan.topology_assumed) {
      const auto& t = plan.nodes.front().topology;
      for (const std::string& w : topology_contradictions(r, {t.source, t.packages, t.cores, t.pus, static_cast<int>(t.gpus.size())}))
        table << "warning: " << w << "\n";
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    table << "wrote " << o.output << " (" << plan.num_nodes << " x " << plan.ranks_per_node << " ranks, trainer "
          << enum_name(plan.trainer_run.kind, kTrainerKindNames) << (plan.trainer_run.profile.empty() ? "" : " " + plan.trainer_run.profile) << ") in "
          << static_cast<int>(s * 1000) << " ms; check it with: harness run " << o.output << " --dry-run\n";
    return 0;
  } catch (const UserError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << o.config << ": " << e.what() << "\n";
    return 2;
  }
}

}  // namespace bert::harness
