// The synthetic shard set a data bench writes (bert-data synth's MLPerf-like lengths) and its command-line
// options: where (--dir; by default a temporary directory, removed at the end), how many shards of how
// many sequences (--shards, --samples-per-shard), which sequence length (--seq-len).
#pragma once
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <filesystem>
#include <fmt/core.h>
#include <string>

namespace bert::bench {

class SynthSet {
 public:
  std::string dir;
  int shards = 8, seq_len = 512;
  int64_t per_shard;

  explicit SynthSet(int64_t per_shard_default) : per_shard(per_shard_default) {}
  ~SynthSet() {
    std::error_code ec;
    if (temp_) std::filesystem::remove_all(dir, ec);
  }
  SynthSet(const SynthSet&) = delete;
  SynthSet& operator=(const SynthSet&) = delete;

  void add_options(CLI::App& app) {
    app.add_option("--dir", dir, "work directory (default: a temporary one, removed afterwards)");
    app.add_option("--shards", shards)->check(CLI::PositiveNumber);
    app.add_option("--samples-per-shard", per_shard)->check(CLI::PositiveNumber);
    app.add_option("--seq-len", seq_len)->check(CLI::Range(16, 32767));
  }
  // After parsing: without --dir, the temporary directory <temp>/<name>_<pid>.
  void default_dir(const char* name) {
    temp_ = dir.empty();
    if (temp_) dir = (std::filesystem::temp_directory_path() / fmt::format("{}_{}", name, ::getpid())).string();
  }

 private:
  bool temp_ = false;
};

}  // namespace bert::bench
