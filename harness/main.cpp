// `harness`: run a system's benchmark set, or check it first with --dry-run.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "common/cli_parse.h"
#include "harness/config/config.h"
#include "harness/config/schema.h"
#include "harness/history/history_cli.h"
#include "harness/import/import_command.h"
#include "harness/plan/build_plan.h"
#include "harness/plan/host_tool.h"
#include "harness/plan/print_plan.h"
#include "process/child_process.h"
#include "harness/run/run.h"
#include "harness/submit/package_command.h"
#include "harness/submit/probe_command.h"
#include "results/cli.h"
#include "source_commit.h"  // generated: BERT_SOURCE_COMMIT, BERT_SOURCE_DIRTY, BERT_SOURCE_DIR

namespace {

struct RunArgs {
  std::string system;
  bool dry_run = false;
  bool json = false;
  std::vector<std::string> sets;
  std::string resume;
  std::string preflight = "warn";
  bool submit_command = false;
  std::vector<std::string> exclude;
  bert::harness::history::RunRecordArgs record;  // --db, --fail-on-reference
};

// The plan of `harness run`: from the system file, or the one recorded in --resume OUTDIR; with --exclude
// re-made (from the recorded system file and --set lines when none is given) without those nodes,
// adding to the ones the set already excluded.
bert::harness::Plan make_plan(const RunArgs& a) {
  using namespace bert::harness;
  if (a.system.empty() && a.exclude.empty()) return load_plan_for_resume(a.resume);
  std::string system = a.system;
  std::vector<std::string> sets = a.sets, exclude = a.exclude;
  if (!a.resume.empty() && !a.exclude.empty()) {
    const Plan recorded = load_plan_for_resume(a.resume);
    if (system.empty()) {
      system = recorded.system_file;
      sets.insert(sets.begin(), recorded.sets.begin(), recorded.sets.end());
    }
    for (const std::string& x : recorded.excluded)
      if (std::find(exclude.begin(), exclude.end(), x) == exclude.end()) exclude.insert(exclude.begin(), x);
  }
  Overrides ov{process_environment(), sets};
  BuildOptions bo;
  bo.env = ov.env;
  bo.source = {BERT_SOURCE_COMMIT, BERT_SOURCE_DIRTY != 0, BERT_SOURCE_DIR};
  bo.exclude = exclude;
  bo.sets = sets;
  return build_plan(Config::load(find_system_file(system), ov), bo);
}

int run_command(const RunArgs& a) {
  using namespace bert::harness;
  try {
    if (a.system.empty()) {  // --resume OUTDIR alone: the plan recorded there
      if (a.resume.empty()) {
        std::cerr << "harness: run needs a system file (e.g. systems/local.yaml)\n";
        return 2;
      }
      if (!a.sets.empty() && a.exclude.empty()) {
        std::cerr << "harness: --resume without a system file takes no --set (the recorded plan is run as it is)\n";
        return 2;
      }
    }
    Plan plan = make_plan(a);
    if (!a.resume.empty()) use_recorded_seeds(plan, a.resume);
    if (a.submit_command) {  // slurm/run.sub --submit: the queueing command, one word per line
      if (plan.submit.argv.empty()) {
        std::cerr << "harness: launcher " << plan.launcher << " is not queued through a batch system; run it directly\n";
        return 2;
      }
      for (const std::string& w : plan.submit.argv) std::cout << w << "\n";
      return 0;
    }
    if (a.json) {
      std::cout << plan.to_json().dump(2) << "\n";
      if (a.dry_run) return 0;
    }
    if (a.dry_run) {
      print_dry_run(plan, std::cout);
      return 0;
    }
    for (const std::string& w : plan.warnings) std::cerr << "warning: " << w << "\n";
    RunOptions ro;
    ro.resume_dir = a.resume;
    ro.progress_tty = isatty(STDOUT_FILENO) != 0;
    ro.preflight = a.preflight == "fail" ? PreflightPolicy::Fail : a.preflight == "off" ? PreflightPolicy::Off : PreflightPolicy::Warn;
    history::SetEndOutcome outcome;  // references' verdicts, report.html, the results database
    ro.at_end = history::make_set_end_hook({a.record.db, process_environment()}, &outcome);
    return history::run_exit_code(run_experiments(plan, ro), a.record, outcome);
  } catch (const bert::UserError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {  // anything else is still a clean, single-line failure
    std::cerr << (a.system.empty() ? std::string("harness") : a.system) << ": " << e.what() << "\n";
    return 2;
  }
}

void print_schema() {
  using namespace bert::harness;
  std::cout << "| key | type | default | allowed | meaning |\n|---|---|---|---|---|\n";
  for (const SchemaEntry& e : schema()) {
    std::string allowed;
    if (e.type == ValueType::Int || e.type == ValueType::Float || e.type == ValueType::IntOrAuto) allowed = e.range.describe();
    std::string type = type_name(e);
    if (e.type == ValueType::Enum) {
      allowed = type.substr(7);  // after "one of "
      type = "choice";
    }
    std::cout << "| `" << e.path << "` | " << type << " | " << (e.def.empty() ? "" : "`" + e.def + "`") << " | " << allowed
              << " | " << e.doc << " |\n";
  }
  std::cout << "\nEnvironment overrides:";
  for (const auto& [var, key] : env_override_keys()) std::cout << " " << var << "=" << key;
  std::cout << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"harness: MLPerf Training BERT benchmark harness"};
  app.require_subcommand(1);
  RunArgs ra;
  CLI::App* run = app.add_subcommand("run", "run a system's NEXP experiments (or --dry-run: print the plan)");
  run->add_option("system", ra.system, "system YAML, e.g. systems/local.yaml (may be left out with --resume)");
  run->add_flag("--dry-run", ra.dry_run, "validate and print the plan; launch nothing");
  run->add_flag("--submit-command", ra.submit_command,
                "print the command that queues the set (sbatch --nodes --time=<job walltime> ...), one word per line");
  run->add_flag("--json", ra.json, "print the plan as JSON (with --dry-run: only the JSON)");
  run->add_option("--set", ra.sets, "override a key: --set key.path=value (repeatable)")->allow_extra_args(false);
  run->add_option("--resume", ra.resume,
                  "continue the set in this output directory (alone: its recorded plan; with --dry-run/--json: print it)");
  run->add_option("--exclude", ra.exclude,
                  "NODE[,NODE]: go on without these nodes (srun/sbatch --exclude; with --resume the recorded plan is "
                  "re-made for the remaining nodes, or refused where the node count is fixed)")
      ->delimiter(',');
  run->add_option("--preflight", ra.preflight, "node checks before the set (busy GPU, pinned CPUs): fail, warn or off")
      ->check(CLI::IsMember({"fail", "warn", "off"}));
  bert::harness::history::add_run_options(*run, ra.record);
  CLI::App* schema_cmd = app.add_subcommand("schema", "print every system-YAML key (type, default, allowed values, meaning)");
  bert::harness::register_import_command(app);
  bert::harness::register_package_command(app);
  bert::harness::register_probe_command(app);
  bert::results::register_check_command(app);
  bert::results::register_score_command(app, bert::harness::history::score_record_extension(bert::harness::process_environment()));
  bert::harness::history::register_history_commands(app);
  if (auto rc = bert::parse_command_line(app, argc, argv)) return *rc;
  if (run->parsed()) return run_command(ra);
  if (int rc = bert::harness::run_import_if_parsed(); rc >= 0) return rc;
  if (int rc = bert::harness::run_package_if_parsed(); rc >= 0) return rc;
  if (int rc = bert::harness::history::run_history_if_parsed(bert::harness::process_environment()); rc >= 0) return rc;
  if (int rc = bert::harness::run_probe_if_parsed({BERT_SOURCE_COMMIT, BERT_SOURCE_DIRTY != 0, BERT_SOURCE_DIR}); rc >= 0)
    return rc;
  if (schema_cmd->parsed()) {
    print_schema();
    return 0;
  }
  return 0;
}
