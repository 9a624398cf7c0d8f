#include <fmt/core.h>
#include <memory>

#include "dataset/cli/commands.h"
#include "formats/data_error.h"
#include "dataset/dataset_tools.h"

namespace bert::data::cli {
namespace {

struct InspectArgs {
  std::string path, chk, write_chk;
  Limits limits{0, 0, 0};
};

void print_summary(const DatasetSummary& s) {
  const double mean = s.sequences ? static_cast<double>(s.tokens) / s.sequences : 0.0;
  fmt::print("  files {}, rows {}, sequences {}, tokens {}, mean length {:.1f}, longest row {}, masked {} ({:.2f}/seq)\n",
             s.files, s.samples, s.sequences, s.tokens, mean, s.max_length, s.masked,
             s.sequences ? static_cast<double>(s.masked) / s.sequences : 0.0);
}

void add_limits(CLI::App* cmd, InspectArgs& a) {
  cmd->add_option("--vocab", a.limits.vocab_size, "check ids < vocab (0 = no check)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--seq-len", a.limits.seq_len, "check lengths <= seq_len / fixed width (0 = from file)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-pred", a.limits.max_pred, "check masked per sequence (0 = no check)")
      ->check(CLI::NonNegativeNumber);
}

}  // namespace

void add_info_verify(CLI::App& app) {
  auto info_args = std::make_shared<InspectArgs>();
  auto* info = app.add_subcommand("info", "layout, counts and length statistics of a shard or directory");
  info->add_option("path", info_args->path, "HDF5 shard or directory of shards")->required();
  info->callback([a = info_args] {
    const auto files = input_files(a->path);
    const ShardInfo first = shard_info(files.front());
    fmt::print("{}: {} layout, {} file(s)", a->path, format_name(first.format), files.size());
    if (first.format == Format::fixed) fmt::print(", width {} x {} masked slots", first.width, first.mlm_width);
    fmt::print("\n");
    const DatasetSummary s = verify_files(files, a->limits, nullptr);
    print_summary(s);
    const size_t bin = std::max<size_t>(1, (s.length_hist.size() + 7) / 8);
    fmt::print("  length histogram (bins of {}):", bin);
    for (size_t lo = 0; lo < s.length_hist.size(); lo += bin) {
      int64_t n = 0;
      for (size_t l = lo; l < std::min(s.length_hist.size(), lo + bin); ++l) n += s.length_hist[l];
      fmt::print(" {}-{}:{}", lo, lo + bin - 1, n);
    }
    fmt::print("\n");
  });

  auto ver = std::make_shared<InspectArgs>();
  auto* verify = app.add_subcommand("verify", "read every value and check structure, dtypes and ranges");
  verify->add_option("path", ver->path, "HDF5 shard or directory of shards")->required();
  add_limits(verify, *ver);
  verify->add_option("--chk", ver->chk, "compare with an md5 list in NVIDIA's .chk scheme");
  verify->add_option("--write-chk", ver->write_chk, "write the md5 list of the files (NVIDIA's .chk scheme)");
  verify->callback([a = ver] {
    const auto files = input_files(a->path);
    const DatasetSummary s =
        verify_files(files, a->limits, [](int64_t d, int64_t t) { progress_line("file verified", d, t); });
    if (!a->chk.empty()) {
      const auto problems = check_chk(files, a->chk);
      if (!problems.empty()) {
        for (size_t i = 1; i < problems.size(); ++i) fmt::print(stderr, "bert-data: {}\n", problems[i]);
        throw DataError(problems.front());
      }
      fmt::print("verify: md5 of {} file(s) match {}\n", files.size(), a->chk);
    }
    if (!a->write_chk.empty()) write_chk(files, a->write_chk);
    fmt::print("verify: OK {}\n", a->path);
    print_summary(s);
  });
}

}  // namespace bert::data::cli
