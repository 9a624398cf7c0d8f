#include "harness/plan/data_setup.h"

#include <algorithm>

#include "harness/config/schema.h"
#include "harness/plan/host_tool.h"

namespace bert::harness {

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The trainer loads only our weights HDF5: a PyTorch or TensorFlow checkpoint would pass the dry-run and
// fail on the allocation. Judged by the name (the path is usually on the cluster, not here).
void check_checkpoint_name(const Config& cfg, const std::string& path, const std::string& bin_dir) {
  if (path.empty() || ends_with(path, ".h5") || ends_with(path, ".hdf5")) return;
  const std::string convert = host_tool(bin_dir, "bert-data") + " convert-checkpoint";
  std::string prefix = path;
  for (const char* tail : {".index", ".meta"})
    if (ends_with(prefix, tail)) prefix.resize(prefix.size() - std::string(tail).size());
  if (auto d = prefix.find(".data-"); d != std::string::npos) prefix.resize(d);
  if (ends_with(path, ".pt") || ends_with(path, ".pth") || ends_with(path, ".bin"))
    cfg.fail("benchmark.data.checkpoint",
             "'" + path + "' is a PyTorch checkpoint; the trainer loads only its weights HDF5 (.h5). Convert MLPerf's TF "
             "phase-1 checkpoint instead: " + convert + " <dir>/model.ckpt-28252 <dir>/model.ckpt-28252.h5");
  cfg.fail("benchmark.data.checkpoint",
           "'" + path + "' is not a weights HDF5 (.h5); the trainer loads only that. For a TF checkpoint: " + convert + " " +
               prefix + " " + prefix + ".h5");
}

}  // namespace

DataPaths resolve_data(const Config& cfg, Plan& plan, const std::string& bin_dir) {
  DataPaths d{cfg.str("benchmark.data.train_dir"), cfg.str("benchmark.data.eval_dir"), cfg.str("benchmark.data.checkpoint")};
  if (setting(cfg, "trainer.kind", kTrainerKindNames) == TrainerKind::Builtin) check_checkpoint_name(cfg, d.checkpoint, bin_dir);  // an external one loads its own
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
