// Loader throughput from HDF5: sequences per second that Loader::next() delivers (reading,
// validating, shuffling and assembling batches; no model), for the padded (varlength, fixed) and
// the packed layouts at MLPerf's shape (vocab 30522, seq 512) or the given one.
// Goal: >= 44,000 seq/s with 2 cores (5x what an 8-GPU H100 node consumes).
//   build/loader_throughput [--dir DIR] [--shards 8] [--samples-per-shard 8000] [--seq-len 512]
//                           [--batch 48] [--epochs 2]
#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <fmt/core.h>
#include <thread>
#include <unistd.h>

#include "bench/synth_set.h"
#include "dataset/synth.h"
#include "trainer/data/loader.h"

using namespace bert::data;

int main(int argc, char** argv) {
  CLI::App app{"loader throughput from HDF5 shards"};
  bert::bench::SynthSet set(8000);
  int batch = 48, epochs = 2, vocab = 30522;
  set.add_options(app);
  app.add_option("--vocab", vocab)->check(CLI::Range(200, 32767));
  app.add_option("--batch", batch, "rows per batch (packed: packs)")->check(CLI::PositiveNumber);
  app.add_option("--epochs", epochs)->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  set.default_dir("loader_bench");
  try {
    SynthOptions opt;
    opt.vocab_size = vocab;
    opt.seq_len = set.seq_len;
    fmt::print("loader_throughput: {} shards x {} sequences, seq_len {}, vocab {}, batch {}, {} epochs, {} hw threads\n",
               set.shards, set.per_shard, set.seq_len, vocab, batch, epochs, std::thread::hardware_concurrency());
    for (Format f : {Format::varlength, Format::fixed, Format::packed}) {
      const std::string out = fmt::format("{}/{}", set.dir, format_name(f));
      write_synth_dataset(opt, SynthLayout{out, f, set.shards, set.per_shard, 0});
      LoaderOptions lo;
      lo.dir = out + "/train";
      lo.format = f;
      lo.batch_size = batch;
      lo.seq_len = set.seq_len;
      lo.max_pred = opt.resolved_max_pred();
      lo.vocab_size = vocab;
      lo.epochs = epochs;
      lo.prefetch = 8;
      const auto t0 = std::chrono::steady_clock::now();
      Loader loader(lo);
      Batch b;
      int64_t batches = 0;
      while (loader.next(b)) {
        ++batches;
      }
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double seqs = static_cast<double>(loader.sequences_served());
      fmt::print("  {:<9} {:>9.0f} seq/s  {:>7.0f} batches/s  {:>6.2f} seq/row  ({} sequences in {:.3f} s)\n",
                 format_name(f), seqs / s, static_cast<double>(batches) / s,
                 seqs / (static_cast<double>(batches) * batch), loader.sequences_served(), s);
    }
  } catch (const DataError& e) {
    fmt::print(stderr, "loader_throughput: {}\n", e.what());
    return 2;
  }
  return 0;
}
