// Packing rate: sequences per pack, padding fraction and wall time of `bert-data pack` global
// (histogram solver over all shards) against per-shard best-fit decreasing, on a synthetic
// varlength set (bert-data synth's MLPerf-like lengths). Also prints the set's length histogram
// and the bounds on sequences per pack it allows (packing.h).
//   build/packing_rate [--dir DIR] [--shards 8] [--samples-per-shard 20000] [--seq-len 512]
//                      [--max-per-pack 3]
#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <fmt/core.h>
#include <thread>
#include <unistd.h>

#include "bench/synth_set.h"
#include "dataset/dataset_tools.h"
#include "dataset/packing.h"
#include "dataset/synth.h"

using namespace bert::data;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void print_histogram(const std::vector<int64_t>& hist, int seq_len) {
  int64_t n = 0, tokens = 0;
  for (size_t len = 0; len < hist.size(); ++len) n += hist[len], tokens += hist[len] * static_cast<int64_t>(len);
  const int bin = std::max(1, seq_len / 8);
  fmt::print("  length histogram ({} sequences, mean length {:.1f}, full length {:.1f}%):\n", n,
             static_cast<double>(tokens) / static_cast<double>(n), 100.0 * static_cast<double>(hist[seq_len]) / n);
  for (int lo = 1; lo <= seq_len; lo += bin) {
    int64_t c = 0;
    for (int len = lo; len < lo + bin && len <= seq_len; ++len) c += hist[len];
    fmt::print("    [{:>4}, {:>4}] {:>8} {:>5.1f}%\n", lo, std::min(seq_len, lo + bin - 1), c, 100.0 * static_cast<double>(c) / n);
  }
}

void print_result(const char* name, const PackSummary& s, double secs) {
  fmt::print("  {:<9} {:.4f} sequences/pack  padding {:.3f}%  {} packs  {:.2f} s wall\n", name, s.sequences_per_pack(),
             100.0 * (1.0 - s.efficiency()), s.packs, secs);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"packing rate: global histogram packing vs per-shard best-fit"};
  bert::bench::SynthSet set(20000);
  int max_per_pack = 3;
  set.add_options(app);
  app.add_option("--max-per-pack", max_per_pack)->check(CLI::Range(1, 64));
  CLI11_PARSE(app, argc, argv);
  set.default_dir("packing_bench");
  const std::string& dir = set.dir;
  const int seq_len = set.seq_len;
  int rc = 0;
  try {
    SynthOptions opt;
    opt.vocab_size = 30522;
    opt.seq_len = seq_len;
    fmt::print("packing_rate: {} shards x {} sequences, seq_len {}, <= {} per pack, {} hw threads\n", set.shards,
               set.per_shard, seq_len, max_per_pack, std::thread::hardware_concurrency());
    write_synth_dataset(opt, SynthLayout{dir + "/synth", Format::varlength, set.shards, set.per_shard, 0});
    const auto files = input_files(dir + "/synth/train");
    const Limits lim{opt.vocab_size, seq_len, opt.resolved_max_pred()};

    std::vector<int64_t> hist(static_cast<size_t>(seq_len) + 1, 0);
    for (const auto& f : files)
      for (int16_t len : read_lengths(f, lim)) ++hist[static_cast<size_t>(len)];
    print_histogram(hist, seq_len);
    const PackingBounds b = packing_bounds(hist, seq_len, max_per_pack);
    const double n = static_cast<double>(b.sequences);
    fmt::print("  bounds on sequences/pack: tokens {:.4f}, <= {} per pack {:.4f}, long sequences {:.4f}; best {:.4f}\n",
               n / static_cast<double>(b.tokens_packs), max_per_pack, n / static_cast<double>(b.per_pack_packs),
               n / static_cast<double>(std::max<int64_t>(1, b.long_packs)), b.max_sequences_per_pack());
    fmt::print("  unpacked (one per row): 1.0000 sequences/pack  padding {:.3f}%\n",
               100.0 * (1.0 - static_cast<double>(b.tokens) / (n * seq_len)));
    auto t0 = std::chrono::steady_clock::now();
    const auto strategies = solve_packing(hist, seq_len, max_per_pack);
    const double solve_s = seconds_since(t0);
    fmt::print("  solver alone: {} shapes, {:.4f} sequences/pack, {:.4f} s\n", strategies.size(),
               n / static_cast<double>(count_packs(strategies)), solve_s);

    t0 = std::chrono::steady_clock::now();
    const PackSummary per = pack_files(files, dir + "/per_shard", lim, max_per_pack, 12345, nullptr);
    print_result("per-shard", per, seconds_since(t0));
    t0 = std::chrono::steady_clock::now();
    const PackSummary glob = pack_files_global(files, dir + "/global", lim, max_per_pack, 12345, 0, nullptr);
    print_result("global", glob, seconds_since(t0));
  } catch (const DataError& e) {
    fmt::print(stderr, "packing_rate: {}\n", e.what());
    rc = 2;
  }
  return rc;
}
