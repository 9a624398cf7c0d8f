#include <fmt/core.h>
#include <memory>

#include "dataset/cli/commands.h"
#include "dataset/synth.h"

namespace bert::data::cli {

namespace {
void synth_progress(int done, int total) { progress_line("shard written", done, total); }
}  // namespace

void add_synth(CLI::App& app) {
  auto* cmd = app.add_subcommand("synth", "write a learnable synthetic dataset (train shards + eval file)");
  struct Args {
    SynthOptions opt;
    SynthLayout lay;
    std::string format = "varlength";
  };
  auto a = std::make_shared<Args>();
  SynthOptions& opt = a->opt;
  SynthLayout& lay = a->lay;
  std::string& format = a->format;
  cmd->add_option("--out", lay.out_dir, "output directory (gets train/, eval/, synth.json; made as OUT.partial, renamed when complete)")->required();
  cmd->add_option("--format", format, "fixed | varlength | packed")->check(CLI::IsMember({"fixed", "varlength", "packed"}));
  cmd->add_option("--shards", lay.shards, "training shards")->check(CLI::PositiveNumber);
  cmd->add_option("--samples-per-shard", lay.samples_per_shard, "sequences per shard (before packing)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--eval-samples", lay.eval_samples, "eval sequences (0 = no eval file)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--vocab", opt.vocab_size, "vocabulary size (MLPerf 30522)")->check(CLI::Range(200, 32767));
  cmd->add_option("--seq-len", opt.seq_len, "max sequence length (MLPerf 512)")->check(CLI::Range(16, 32767));
  cmd->add_option("--max-pred", opt.max_pred, "max masked tokens per sequence (0 = 76*seq_len/512)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--topics", opt.topics, "grammar topics (cycles of tokens)")->check(CLI::PositiveNumber);
  cmd->add_option("--content-tokens", opt.content_tokens, "content ids the grammar uses (0 = all; fewer = easier)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--topic-skew", opt.topic_skew, "P(next token from the topic's peaked distribution), [0, 1); 0 = off")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--seed", opt.seed, "seed (everything is deterministic from it)");
  cmd->callback([a] {
    SynthOptions& opt = a->opt;
    SynthLayout& lay = a->lay;
    const std::string& format = a->format;
    lay.format = parse_format(format);
    fmt::print("synth: {} shards x {} sequences, {} layout, vocab {}, seq_len {}, max_pred {}, seed {} -> {}\n",
               lay.shards, lay.samples_per_shard, format, opt.vocab_size, opt.seq_len, opt.resolved_max_pred(),
               opt.seed, lay.out_dir);
    into_new_folder(lay.out_dir, [&](const std::string& dir) {  // killed half-way, no OUT that a setup step would skip
      SynthLayout partial = lay;
      partial.out_dir = dir;
      write_synth_dataset(opt, partial, synth_progress);
    });
    fmt::print("synth: wrote {}/train ({} shards), {}/eval/part_eval.hdf5 ({} samples), {}/synth.json\n", lay.out_dir,
               lay.shards, lay.out_dir, lay.eval_samples, lay.out_dir);
  });
}

void add_grammar_stats(CLI::App& app) {
  auto* cmd = app.add_subcommand("grammar-stats", "how predictable the synthetic data's masked tokens are");
  struct Args {
    SynthOptions opt;
    int64_t train = 20000, eval = 2000;
  };
  auto a = std::make_shared<Args>();
  SynthOptions& opt = a->opt;
  int64_t& train = a->train;
  int64_t& eval = a->eval;
  cmd->add_option("--vocab", opt.vocab_size, "vocabulary size")->check(CLI::Range(200, 32767));
  cmd->add_option("--seq-len", opt.seq_len, "max sequence length")->check(CLI::Range(16, 32767));
  cmd->add_option("--max-pred", opt.max_pred, "max masked per sequence (0 = 76*seq_len/512)");
  cmd->add_option("--topics", opt.topics, "grammar topics")->check(CLI::PositiveNumber);
  cmd->add_option("--content-tokens", opt.content_tokens, "content ids the grammar uses (0 = all)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--topic-skew", opt.topic_skew, "P(next token from the topic's peaked distribution), [0, 1)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--seed", opt.seed, "seed");
  cmd->add_option("--train-samples", train, "samples the bigram predictor learns from")->check(CLI::PositiveNumber);
  cmd->add_option("--eval-samples", eval, "eval samples scored")->check(CLI::PositiveNumber);
  cmd->callback([a] {
    const SynthOptions& opt = a->opt;
    const int64_t train = a->train, eval = a->eval;
    const GrammarStats st = grammar_stats(opt, train, eval);
    fmt::print("grammar-stats: vocab {}, seq_len {}, topics {}, content tokens {}, seed {}: {} masked tokens in {} eval "
               "samples\n", opt.vocab_size, opt.seq_len, opt.topics, opt.content_tokens, opt.seed, st.masked, eval);
    fmt::print("  lengths: mean {:.1f} of {} ({:.3f}), <= seq_len/4: {:.3f}, full: {:.3f}\n", st.mean_length, opt.seq_len,
               st.mean_length / opt.seq_len, st.short_fraction, st.full_fraction);
    fmt::print("  masked-LM accuracy: oracle (true-grammar posterior) {:.4f}\n", st.oracle);
    if (st.bigram >= 0)
      fmt::print("  masked-LM accuracy: bigram counts from {} samples {:.4f}\n", train, st.bigram);
    fmt::print("  masked-LM accuracy: most frequent token {:.4f}\n", st.unigram);
  });
}

}  // namespace bert::data::cli
