// `harness score`: time to train per run, olympic mean, RCP, scaling, final score.
#include <iostream>
#include <memory>

#include "results/cli.h"
#include "results/score.h"

namespace bert::results {

void register_score_command(CLI::App& app, const ScoreExtension& ext) {
  struct Args {
    std::string dir;
    ScoreOptions opts;
    bool json_out = false, no_rcp = false, scaling_file = false;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("score", "score a BERT results dir: time to train, olympic mean, RCP");
  cmd->add_option("dir", a->dir, "results directory with result_*.txt")->required();
  cmd->add_option("--ruleset", a->opts.ruleset, "training ruleset: 3.1.0, 4.0.0, 4.1.0 or 5.0.0")
      ->capture_default_str();
  cmd->add_flag("--json", a->json_out, "machine-readable result");
  cmd->add_flag("--no-rcp", a->no_rcp, "skip the RCP check");
  cmd->add_flag("--rcp-full", a->opts.rcp_full, "compare against all RCPs instead of the pruned set");
  cmd->add_flag("--bert-train-samples", a->opts.rcp_bert_train_samples,
                "RCP: samples to converge from the train_samples line");
  cmd->add_flag("--scaling-json", a->scaling_file,
                "scale by <dir>/scaling.json (as the bare summarizer) instead of the RCP normalization");
  cmd->add_flag("--write-scaling-json", a->opts.write_scaling_json,
                "replace <dir>/scaling.json from the RCP result, as the package checker does");
  if (ext.add_options) ext.add_options(*cmd);
  cmd->callback([a, after = ext.after_score] {
    int rc = 0;
    try {
      a->opts.rcp = !a->no_rcp;
      if (a->scaling_file) a->opts.scaling = ScoreOptions::Scaling::FromFile;
      ScoreResult r = score_results_dir(a->dir, a->opts);
      std::cout << (a->json_out ? to_json(r).dump(2) + "\n" : format_table(r));
      rc = r.score_minutes && (!r.rcp.checked || r.rcp.passed) ? 0 : 1;
      if (after)
        if (const int x = after(a->dir, r)) rc = x;
    } catch (const UserError& e) {
      std::cerr << "harness score: " << e.what() << "\n";
      rc = 2;
    }
    end_command(rc);
  });
}

}  // namespace bert::results
