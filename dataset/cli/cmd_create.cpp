#include <fmt/core.h>
#include <memory>
#include <thread>
#include <unistd.h>

#include "dataset/cli/commands.h"
#include "formats/data_error.h"
#include "dataset/text/create_parts.h"

namespace bert::data::cli {

void add_generator_options(CLI::App* cmd, text::GeneratorOptions& g) {
  cmd->add_option("--seed", g.seed, "random_seed (one random.Random per part)")->capture_default_str();
  cmd->add_option("--dupe-factor", g.dupe_factor, "dupe_factor")->capture_default_str()->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-seq-length", g.max_seq_length, "max_seq_length")->capture_default_str()->check(CLI::Range(5, 32767));
  cmd->add_option("--max-predictions-per-seq", g.max_predictions_per_seq, "max_predictions_per_seq")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--masked-lm-prob", g.masked_lm_prob, "masked_lm_prob")->capture_default_str()->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--short-seq-prob", g.short_seq_prob, "short_seq_prob")->capture_default_str()->check(CLI::Range(0.0, 1.0));
  cmd->add_flag("--lower-case,!--no-lower-case", g.lower_case, "do_lower_case")->capture_default_str();
}

void print_create_progress(const text::CreateProgress& p) {
  const double mb = static_cast<double>(p.bytes_done) / 1e6, total = static_cast<double>(p.bytes_total) / 1e6;
  const double rate = p.seconds > 0 ? mb / p.seconds : 0;
  const double eta = rate > 0 ? (total - mb) / rate : 0;
  fmt::print(stderr, "  [{}/{}] parts, {:.1f} of {:.1f} MB, {:.2f} MB/s, ETA {}:{:02d}:{:02d}\n", p.parts_done,
             p.parts_total, mb, total, rate, static_cast<int>(eta) / 3600, static_cast<int>(eta) / 60 % 60,
             static_cast<int>(eta) % 60);
}

void add_create(CLI::App& app) {
  struct Args {
    std::string in, out, vocab;
    int jobs = 0;
    bool resume = false;
    text::GeneratorOptions gen;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "create", "text parts + vocab.txt -> fixed-length HDF5, one file per part (the reference generator's arrays)");
  cmd->add_option("in", a->in, "text part, or directory of parts (one sentence per line, blank line between documents)")
      ->required();
  cmd->add_option("out", a->out, "output directory: OUT/<part name>.hdf5 (made as OUT.partial, renamed when complete)")
      ->required();
  cmd->add_option("--vocab", a->vocab, "vocab.txt")->required();
  cmd->add_option("--jobs", a->jobs, "worker processes (0 = one per core)")->check(CLI::NonNegativeNumber);
  cmd->add_flag("--resume", a->resume, "keep the finished parts of a stopped run (OUT.partial) or of OUT, and make the rest");
  add_generator_options(cmd, a->gen);
  cmd->callback([a] {
    const auto parts = regular_files(a->in);
    const text::Vocab vocab = text::Vocab::load(a->vocab);
    const int workers = a->jobs > 0 ? a->jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    fmt::print("create: {} part(s), {} worker(s), seq {} / {} predictions, seed {}, dupe {} -> {}\n", parts.size(),
               std::min<size_t>(workers, parts.size()), a->gen.max_seq_length, a->gen.max_predictions_per_seq, a->gen.seed,
               a->gen.dupe_factor, a->out);
    const auto r = text::create_folder(parts, a->out, vocab, a->gen, workers, a->resume, print_create_progress);
    fmt::print("create: {} part(s) written ({} already there), {} instances, {:.1f} MB of text in {:.1f} s "
               "({:.2f} MB/s), peak RSS per worker {:.0f} MB\n",
               r.parts, r.skipped, r.instances, static_cast<double>(r.bytes) / 1e6, r.seconds,
               r.seconds > 0 ? static_cast<double>(r.bytes) / 1e6 / r.seconds : 0.0, static_cast<double>(r.peak_rss_kb) / 1024);
  });
}

}  // namespace bert::data::cli
