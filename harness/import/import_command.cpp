#include "harness/import/import_command.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "common/cli_parse.h"
#include "harness/config/config.h"
#include "harness/import/config_import.h"
#include "harness/plan/build_plan.h"
#include "process/child_process.h"

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
                                                      "default: the hardware base's)");
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
  try {
    const auto t0 = std::chrono::steady_clock::now();
    ImportResult r = import_config(o);
    std::ostream& table = o.output.empty() ? std::cerr : std::cout;
    table << import_table(r);
    if (o.output.empty()) {
      std::cout << r.yaml;
      return 0;
    }
    {
      std::ofstream out(o.output);
      out << r.yaml;
      if (!out) throw UserError(Loc{o.output}, "", "cannot write the imported YAML");
    }
    // It must plan as it is (the dry-run's checks).
    BuildOptions bo;
    bo.env = penv;
    Plan plan;
    try {
      plan = build_plan(Config::load(o.output, Overrides{{}, {}}), bo);
    } catch (const UserError& e) {
      std::cerr << e.what() << "\nharness import: " << o.output << " is written but does not plan yet; "
                << (e.field == "system.submitter"
                        ? "import again with --submitter ORG (your organization, as the results will name it), or "
                          "--division open, or set system.submitter in the YAML\n"
                        : "give what it lacks when importing (--env NAME=VALUE, --source-first env.sh) or in the YAML\n");
      return 2;
    }
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
