// bert-data: MLPerf BERT dataset and checkpoint tools (see commands.h).
#include <algorithm>
#include <filesystem>
#include <fmt/core.h>

#include "common/cli_parse.h"
#include "dataset/cli/commands.h"
#include "formats/crash_guard.h"
#include "formats/data_error.h"

namespace bert::data::cli {
void progress_line(const char* what, int64_t done, int64_t total) {
  fmt::print(stderr, "  [{}/{}] {}\n", done, total, what);
}

std::vector<std::string> regular_files(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return {path};
  if (!fs::is_directory(path, ec)) throw DataError(fmt::format("{}: no such file or directory", path));
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(path, ec))
    if (e.is_regular_file() && e.path().filename().string()[0] != '.') out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  if (out.empty()) throw DataError(fmt::format("{}: no files", path));
  return out;
}
}  // namespace bert::data::cli

int main(int argc, char** argv) {
  CLI::App app{"bert-data: the MLPerf BERT dataset from its text (create, chop, shuffle, pick-eval, prepare) or the "
               "reference TFRecords (from-tfrecord); HDF5 tools (synth, info, verify, reshard, to-varlength, split4bin, "
               "pack); TF1 checkpoint conversion"};
  app.require_subcommand(1);
  bert::data::install_hdf5_crash_guard("bert-data");
  using namespace bert::data::cli;
  add_synth(app);
  add_grammar_stats(app);
  add_info_verify(app);
  add_transforms(app);
  add_convert_checkpoint(app);
  add_create(app);
  add_from_tfrecord(app);
  add_prepare(app);
  try {
    if (auto rc = bert::parse_command_line(app, argc, argv)) return *rc;
  } catch (const bert::data::DataError& e) {
    fmt::print(stderr, "bert-data: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "bert-data: {}\n", e.what());
    return 1;
  }
  return 0;
}
