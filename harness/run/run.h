// `harness run` without --dry-run: executes a Plan (NEXP experiments, cache clearing, launch, logs,
// compliance check per experiment, score, summary). Implemented in harness/run/ (library bert_harness_run).
//
// What the executor expects of the Plan (everything launcher-specific is asked of plan.launcher's type,
// harness/launch/launcher.h):
// - plan.launch: when the launcher starts no ranks itself (Launcher::starts_each_rank, local) the command
//   of ONE rank; it is started once per rank of plan.nodes[0] with plan.env + launch.env + rank.env, each
//   rank in its own process group. Otherwise it is run once and stands for all ranks; rank 0's lines are
//   found by the launcher's tag style (`srun -l` "0: ", `mpirun --tag-output` "[1,0]<stdout>:"), a failed
//   rank by Launcher::read_failure, and a stop goes through Launcher::stop_command when it has one.
// - The trainer config: before each experiment the executor writes plan.trainer_config with that
//   experiment's seed to plan.run_config_file and keeps a copy in <output_dir>/configs/run_<NN>.yaml;
//   plan.rendezvous_dir (when set) is emptied first.
// - plan.cache_clear: one step that clears the caches of every node (exit status 0 = cleared everywhere);
//   the preflight probe runs through plan.per_node with the launcher's tag flags.
// - plan.setup: run once per `harness run` invocation, before the preflight, each to completion.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/plan/plan.h"
#include "harness/run/output_tree.h"
#include "harness/run/set_state.h"
#include "results/score.h"

namespace bert::harness {

enum class PreflightPolicy { Fail, Warn, Off };

// What the end of a set (run or --resume) hands to an observer, after state.json and the score and
// before summary.md (harness/history: the references' verdicts, report.html, the results database).
struct SetEnd {
  const Plan& plan;
  const OutputTree& tree;
  const SetState& state;
  const std::optional<results::ScoreResult>& score;
};
struct SetEndNotes {
  std::string summary_md;            // markdown appended to summary.md
  std::vector<std::string> console;  // lines printed after the score line
};
using SetEndHook = std::function<SetEndNotes(const SetEnd&)>;

struct RunOptions {
  std::string resume_dir;     // --resume OUTDIR: continue a set, skipping finished experiments
  bool progress_tty = false;  // live progress line when stdout is a terminal
  PreflightPolicy preflight = PreflightPolicy::Warn;  // findings (busy GPU, pinned CPUs ...) fail or warn
  double term_grace_s = 10;   // after SIGTERM to the ranks, SIGKILL follows this much later
  SetEndHook at_end;          // called once when the set ends (not when it stops before the first experiment)
};

// Returns the process exit code: 0 set completed (scored or not), 1 experiments failed, 2 user error
// (e.g. output dir not writable), 130/143 interrupted by SIGINT/SIGTERM (logs kept, summary says so).
int run_experiments(const Plan& plan, const RunOptions& opts);

// For `harness run --resume OUTDIR` without a system file: the Plan recorded in OUTDIR/plan.json (run,
// or printed with --dry-run/--json). Throws std::runtime_error naming the file when it is missing,
// unreadable or not a plan this harness can read.
Plan load_plan_for_resume(const std::string& outdir);

// For `--resume OUTDIR` (with or without a system file): the seeds the set recorded in OUTDIR/state.json
// replace the plan's (a rebuilt plan would draw new random ones), so the dry-run, plan.json and every
// run.yaml show the set's own seeds. No state.json: the plan is unchanged. Throws std::runtime_error
// naming the file when it cannot be read.
void use_recorded_seeds(Plan& plan, const std::string& outdir);

}  // namespace bert::harness
