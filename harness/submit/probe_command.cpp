#include "harness/submit/probe_command.h"

#include <iostream>

#include "common/cli_parse.h"
#include "harness/plan/print_plan.h"
#include "process/child_process.h"
#include "harness/submit/probe.h"

namespace bert::harness {
namespace {

struct ProbeCli : CliSubcommand<ProbeCli> {
  ProbeOptions opts;
  bool no_preflight = false;
};

}  // namespace

void register_probe_command(CLI::App& app) {
  ProbeCli& c = ProbeCli::instance();
  c.cmd = app.add_subcommand("probe", "a short real run: samples/s after warm-up, the projected time to train (from the RCP "
                                      "for BERT-Large at the closed target, else measured or --samples), the walltimes to set "
                                      "(shown by later --dry-runs of this plan)");
  c.cmd->add_option("system", c.opts.system, "system YAML, e.g. systems/local.yaml")->required();
  c.cmd->add_option("--set", c.opts.sets, "override a key, as for harness run (repeatable)")->allow_extra_args(false);
  c.cmd->add_option("--seconds", c.opts.seconds, "walltime of the probe run (default 600)")->check(CLI::Range(10, 86400));
  c.cmd->add_option("--warmup", c.opts.warmup, "points or throughput values left out at the start (default 1)")->check(CLI::Range(0, 1000));
  c.cmd->add_option("--points", c.opts.points, "our trainer: measured points after the warm-up (default 5)")->check(CLI::Range(1, 1000));
  c.cmd->add_option("--steps-per-point", c.opts.steps_per_point, "our trainer: steps between two points (default 10)")
      ->check(CLI::Range(1, 100000));
  c.cmd->add_option("--margin", c.opts.margin, "per-run walltime margin over init + the slowest RCP run (default 0.25)")
      ->check(CLI::Range(0.0, 10.0));
  c.cmd->add_option("--samples", c.opts.samples, "samples this system trains to reach its target, stated (instead of the RCP, "
                                                "which holds for BERT-Large against the closed target only, or of the probe run's own)")
      ->check(CLI::Range(1.0, 1e12));
  c.cmd->add_flag("--no-preflight", c.no_preflight, "skip the probe run's preflight");
}

int run_probe_if_parsed(const SourceInfo& source) {
  ProbeCli& c = ProbeCli::instance();
  if (!c.given()) return -1;
  c.opts.env = process_environment();
  c.opts.source = source;
  c.opts.preflight = !c.no_preflight;
  try {
    ProbeOutcome r = run_probe(c.opts);
    if (!r.measured) {
      std::cerr << "harness probe: no throughput: " << r.why_not << "\n";
      return 1;
    }
    std::cout << probe_lines(r.projection, r.file);
    if (!r.projection.note.empty()) std::cout << "note        " << r.projection.note << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
}

}  // namespace bert::harness
