#include <algorithm>
#include <fmt/core.h>
#include <memory>
#include <thread>

#include "dataset/cli/commands.h"
#include "formats/data_error.h"
#include "dataset/dataset_tools.h"

namespace bert::data::cli {
namespace {

struct TransformArgs {
  std::string in, out, format = "varlength";
  int shards = 0, max_per_pack = 3;
  bool per_shard = false;
  uint64_t seed = 12345;
  int64_t count = 10000;
  int jobs = 1;
  Limits limits{0, 0, 0};
};

void add_jobs(CLI::App* cmd, TransformArgs& a) {
  cmd->add_option("--jobs", a.jobs, "worker processes (0 = one per core)")->capture_default_str()->check(CLI::NonNegativeNumber);
}

int workers(int jobs) { return jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

void add_format(CLI::App* cmd, TransformArgs& a) {
  cmd->add_option("--format", a.format, "output layout: fixed | varlength | auto (that of the first input)")
      ->capture_default_str()
      ->check(CLI::IsMember({"fixed", "varlength", "auto"}));
}

Format output_format(const std::vector<std::string>& files, const std::string& name) {
  if (name != "auto") return parse_format(name);
  const Format f = shard_info(files.front()).format;
  if (f == Format::packed) throw DataError(fmt::format("{}: needs unpacked (fixed or varlength) shards", files.front()));
  return f;
}

void add_io(CLI::App* cmd, TransformArgs& a) {
  cmd->add_option("in", a.in, "input shard or directory")->required();
  cmd->add_option("out", a.out, "output directory")->required();
  cmd->add_option("--vocab", a.limits.vocab_size, "check ids < vocab (0 = no check)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--seq-len", a.limits.seq_len, "sequence length (fixed output width; pack/bin size)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-pred", a.limits.max_pred, "masked slots (fixed output width)")->check(CLI::NonNegativeNumber);
}

Progress step(const char* what) {
  return [what](int64_t d, int64_t t) { progress_line(what, d, t); };
}

}  // namespace

void add_transforms(CLI::App& app) {
  auto rs = std::make_shared<TransformArgs>();
  auto* reshard_cmd = app.add_subcommand("reshard", "rewrite N shards as M shards (sample order kept)");
  add_io(reshard_cmd, *rs);
  reshard_cmd->add_option("--shards", rs->shards, "output shards (e.g. 4320 or 2048)")->required()->check(CLI::PositiveNumber);
  reshard_cmd->add_option("--format", rs->format, "output layout: fixed | varlength")
      ->check(CLI::IsMember({"fixed", "varlength"}));
  add_jobs(reshard_cmd, *rs);
  reshard_cmd->callback([a = rs] {
    const auto files = input_files(a->in);
    into_new_folder(a->out, [&](const std::string& dir) {
      reshard(files, dir, a->shards, parse_format(a->format), a->limits, step("shard written"), workers(a->jobs));
    });
    fmt::print("reshard: {} file(s) -> {} {} shards in {}\n", files.size(), a->shards, a->format, a->out);
  });

  auto ch = std::make_shared<TransformArgs>();
  ch->format = "auto";
  auto* chop_cmd = app.add_subcommand(
      "chop", "cut the concatenated input into N shards by NVIDIA's rule (chop_hdf5_files.py: the first ones one smaller)");
  add_io(chop_cmd, *ch);
  chop_cmd->add_option("--shards", ch->shards, "output shards (MLPerf: 4320)")->required()->check(CLI::PositiveNumber);
  add_format(chop_cmd, *ch);
  add_jobs(chop_cmd, *ch);
  chop_cmd->callback([a = ch] {
    const auto files = input_files(a->in);
    into_new_folder(a->out, [&](const std::string& dir) {
      chop(files, dir, a->shards, output_format(files, a->format), a->limits, step("shard written"), workers(a->jobs));
    });
    fmt::print("chop: {} file(s) -> {} shards in {}\n", files.size(), a->shards, a->out);
  });

  auto sh = std::make_shared<TransformArgs>();
  sh->format = "auto";
  sh->seed = 24;
  auto* sh_cmd = app.add_subcommand(
      "shuffle", "shuffle samples across all shards (NVIDIA's shuffle_indices.py + shuffle_samples.py), sizes and names kept");
  add_io(sh_cmd, *sh);
  sh_cmd->add_option("--seed", sh->seed, "random.Random seed of the reference")->capture_default_str();
  add_format(sh_cmd, *sh);
  sh_cmd->callback([a = sh] {
    const auto files = input_files(a->in);
    into_new_folder(a->out, [&](const std::string& dir) {
      shuffle_samples(files, dir, a->seed, output_format(files, a->format), a->limits,
                      step("shuffle step (read inputs, write outputs)"));
    });
    fmt::print("shuffle: {} shard(s) -> {} (seed {})\n", files.size(), a->out, a->seed);
  });

  auto pe = std::make_shared<TransformArgs>();
  pe->format = "auto";
  auto* pe_cmd = app.add_subcommand(
      "pick-eval", "keep rows int(i*N/count), i < count (NVIDIA's pick_eval_samples.py) in one file");
  add_io(pe_cmd, *pe);
  pe_cmd->get_option("out")->description("output file (e.g. part_eval_10k.hdf5)");
  pe_cmd->add_option("--count", pe->count, "samples to keep")->capture_default_str()->check(CLI::PositiveNumber);
  add_format(pe_cmd, *pe);
  pe_cmd->callback([a = pe] {
    const auto files = input_files(a->in);
    pick_eval(files, a->out, a->count, output_format(files, a->format), a->limits);
    fmt::print("pick-eval: {} of the samples of {} file(s) -> {}\n", a->count, files.size(), a->out);
  });

  auto tv = std::make_shared<TransformArgs>();
  auto* tv_cmd = app.add_subcommand("to-varlength", "rewrite fixed-length shards as variable-length (same names)");
  add_io(tv_cmd, *tv);
  add_jobs(tv_cmd, *tv);
  tv_cmd->callback([a = tv] {
    const auto files = input_files(a->in);
    into_new_folder(a->out, [&](const std::string& dir) {
      convert_files(files, dir, Format::varlength, a->limits, step("file converted"), workers(a->jobs));
    });
    fmt::print("to-varlength: {} file(s) -> {}\n", files.size(), a->out);
  });

  auto sb = std::make_shared<TransformArgs>();
  auto* sb_cmd = app.add_subcommand("split4bin", "split shards into four length bins (Samsung): OUT/128 .. OUT/512");
  add_io(sb_cmd, *sb);
  sb_cmd->add_option("--shards", sb->shards,
                     "Samsung's layout: cut each bin into N shards part_<i>_of_<N>.hdf5 (chop rule); 0 = one file per input")
      ->check(CLI::NonNegativeNumber);
  sb_cmd->callback([a = sb] {
    const auto files = input_files(a->in);
    std::vector<int64_t> counts;
    into_new_folder(a->out, [&](const std::string& dir) {
      counts = a->shards > 0 ? split4bin_chop(files, dir, a->shards, a->limits, step("file split"))
                             : split4bin(files, dir, a->limits, step("file split"));
    });
    fmt::print("split4bin: {} file(s) -> {}: sequences per bin {} / {} / {} / {}\n", files.size(), a->out, counts[0],
               counts[1], counts[2], counts[3]);
  });

  auto pk = std::make_shared<TransformArgs>();
  pk->limits.seq_len = 512;
  auto* pk_cmd = app.add_subcommand("pack", "pack sequences (<= 3 per row of seq-len tokens), NVIDIA's packed layout");
  add_io(pk_cmd, *pk);
  pk_cmd->add_option("--max-per-pack", pk->max_per_pack, "sequences per pack")->check(CLI::Range(1, 64));
  pk_cmd->add_option("--seed", pk->seed, "seed of the pack order and of which sequence fills which slot");
  pk_cmd->add_option("--shards", pk->shards, "output shards (global packing; 0 = as many as input shards)")
      ->check(CLI::NonNegativeNumber);
  pk_cmd->add_flag("--per-shard", pk->per_shard,
                   "pack each input shard on its own (best-fit decreasing) instead of the global histogram solver");
  pk_cmd->callback([a = pk] {
    const auto files = input_files(a->in);
    if (a->per_shard && a->shards > 0) throw DataError("pack: --shards applies to global packing, not --per-shard");
    PackSummary s;
    into_new_folder(a->out, [&](const std::string& dir) {
      s = a->per_shard ? pack_files(files, dir, a->limits, a->max_per_pack, a->seed, step("file packed"))
                       : pack_files_global(files, dir, a->limits, a->max_per_pack, a->seed, a->shards,
                                           step("pack step (scan, distribute, write)"));
    });
    fmt::print("pack: {} sequences -> {} packs of {} tokens in {} ({:.4f} sequences/pack), packing efficiency {:.4f} "
               "(real tokens / pack slots)\n",
               s.sequences, s.packs, s.seq_len, a->out, s.sequences_per_pack(), s.efficiency());
    if (!a->per_shard)
      fmt::print("pack: global, {} pack shapes, {} output shards; bound for this histogram {:.4f} sequences/pack "
                 "(tokens {:.4f}, <= {} per pack {:.4f}, long sequences {:.4f})\n",
                 s.strategies, s.files, s.bounds.max_sequences_per_pack(),
                 static_cast<double>(s.bounds.sequences) / static_cast<double>(s.bounds.tokens_packs), a->max_per_pack,
                 static_cast<double>(s.bounds.sequences) / static_cast<double>(s.bounds.per_pack_packs),
                 static_cast<double>(s.bounds.sequences) / static_cast<double>(std::max<int64_t>(1, s.bounds.long_packs)));
  });
}

}  // namespace bert::data::cli
