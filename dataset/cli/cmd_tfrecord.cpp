#include <filesystem>
#include <fmt/core.h>
#include <memory>

#include "dataset/cli/commands.h"
#include "formats/data_error.h"
#include "formats/shard_write.h"
#include "dataset/dataset_tools.h"
#include "dataset/tfrecord/mlperf_examples.h"

namespace bert::data::cli {

void add_from_tfrecord(CLI::App& app) {
  struct Args {
    std::string in, out, format = "fixed";
    Limits limits{0, 0, 0};
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "from-tfrecord", "MLCommons reference TFRecords -> HDF5 shards (fixed or varlength), every CRC and value checked");
  cmd->add_option("in", a->in, "TFRecord file, or directory of them (every file, name order)")->required();
  cmd->add_option("out", a->out, "output directory: OUT/<input name>.hdf5 (made as OUT.partial, renamed when complete)")->required();
  cmd->add_option("--format", a->format, "output layout")->capture_default_str()->check(CLI::IsMember({"fixed", "varlength"}));
  cmd->add_option("--vocab", a->limits.vocab_size, "check ids < vocab (0 = no check)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--seq-len", a->limits.seq_len, "expected L of the records (0 = that of the first record)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-pred", a->limits.max_pred, "expected P of the records (0 = that of the first record)")
      ->check(CLI::NonNegativeNumber);
  cmd->callback([a] {
    namespace fs = std::filesystem;
    const auto files = regular_files(a->in);
    const Format format = parse_format(a->format);
    int64_t total = 0;
    into_new_folder(a->out, [&](const std::string& dir) {
      make_shard_dir(dir, "from-tfrecord");
      for (size_t k = 0; k < files.size(); ++k) {
        TFRecordShape shape;
        const SequenceSet s = read_mlperf_tfrecord(files[k], a->limits, &shape);
        std::string name = fs::path(files[k]).filename().string();
        if (name.size() > 9 && name.ends_with(".tfrecord")) name.resize(name.size() - 9);
        write_shard((fs::path(dir) / (name + ".hdf5")).string(), s, format,
                    Limits{a->limits.vocab_size, shape.seq_len, shape.max_pred});
        total += s.size();
        progress_line("file converted", static_cast<int64_t>(k + 1), static_cast<int64_t>(files.size()));
      }
    });
    fmt::print("from-tfrecord: {} file(s), {} samples -> {} ({})\n", files.size(), total, a->out, a->format);
  });
}

}  // namespace bert::data::cli
