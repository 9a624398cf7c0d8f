#include "harness/plan/data_setup.h"

#include <algorithm>

#include "harness/config/schema.h"
#include "harness/plan/host_tool.h"

namespace bert::harness {

DataPaths resolve_data(const Config& cfg, Plan& plan, const std::string& bin_dir) {
  DataPaths d{cfg.str("benchmark.data.train_dir"), cfg.str("benchmark.data.eval_dir"), cfg.str("benchmark.data.checkpoint")};
  bool synthetic = false;
  for (const std::string& k : schema_children("benchmark.synthetic")) synthetic = synthetic || cfg.given("benchmark.synthetic." + k);
  if (synthetic) {
    // Made by the host's bert-data (next to harness), also when the ranks run in a container: they
    // see it through the read-only data mounts.
    if (cfg.str("benchmark.synthetic.format") != cfg.str("benchmark.data.format"))
      cfg.fail("benchmark.synthetic.format",
              "is " + cfg.str("benchmark.synthetic.format") + " but benchmark.data.format is " + cfg.str("benchmark.data.format"));
    std::string dir = cfg.str("benchmark.synthetic.dir").empty() ? plan.experiment.output_dir + "/data" : cfg.str("benchmark.synthetic.dir");
    Command synth;
    synth.argv = {host_tool(bin_dir, "bert-data"), "synth", "--out", dir, "--format", cfg.str("benchmark.synthetic.format"),
                  "--shards", cfg.str("benchmark.synthetic.shards"), "--samples-per-shard",
                  cfg.str("benchmark.synthetic.samples_per_shard"), "--eval-samples", cfg.str("benchmark.synthetic.eval_samples"),
                  "--vocab", cfg.str("benchmark.vocab_size"), "--seq-len", cfg.str("benchmark.max_seq_length"), "--max-pred",
                  cfg.str("benchmark.max_predictions_per_seq"), "--seed", cfg.str("benchmark.synthetic.seed")};
    for (const char* k : {"topics", "content_tokens"}) {
      std::string key = std::string("benchmark.synthetic.") + k;
      if (cfg.integer(key) == 0) continue;  // bert-data's default
      std::string flag = std::string("--") + k;
      std::replace(flag.begin(), flag.end(), '_', '-');
      synth.argv.insert(synth.argv.end(), {flag, cfg.str(key)});
    }
    if (cfg.real("benchmark.synthetic.topic_skew") > 0)
      synth.argv.insert(synth.argv.end(), {"--topic-skew", cfg.str("benchmark.synthetic.topic_skew")});
    synth.creates = dir;
    plan.setup.push_back(std::move(synth));
    if (d.train_dir.empty()) d.train_dir = dir + "/train";  // bert-data synth's layout
    if (d.eval_dir.empty()) d.eval_dir = dir + "/eval";
  }
  if (d.train_dir.empty())
    cfg.fail("benchmark.data.train_dir", "no training data: set benchmark.data.train_dir (or DATADIR) or benchmark.synthetic");
  if (d.eval_dir.empty()) cfg.fail("benchmark.data.eval_dir", "no eval data: set benchmark.data.eval_dir (or EVALDIR)");
  return d;
}

}  // namespace bert::harness
