#include <algorithm>
#include <filesystem>
#include <fmt/format.h>

#include "trainer/data/batch_assembly.h"
#include "trainer/data/loader.h"

namespace bert::data {
namespace {

// The eval files: `path` itself, or the files of a directory whose name contains "part", by name.
std::vector<std::string> eval_files(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    if (!fs::is_regular_file(path, ec)) throw DataError(fmt::format("{}: eval file missing", path));
    return {path};
  }
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(path, ec))
    if (e.is_regular_file() && e.path().filename().string().find("part") != std::string::npos &&
        e.path().extension() != ".chk" && e.path().extension() != ".tmp")
      files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw DataError(fmt::format("{}: no eval files (names containing 'part')", path));
  return files;
}

}  // namespace

EvalSet load_eval(const std::string& path, int vocab_size, int seq_len, int max_pred, int64_t num_examples,
                  int rank, int world_size, int batch_size) {
  if (world_size < 1 || rank < 0 || rank >= world_size || batch_size < 1 || num_examples < 1)
    throw DataError(fmt::format("{}: bad eval request (rank {}, world {}, batch {}, examples {})", path, rank,
                                world_size, batch_size, num_examples));
  const Limits lim{vocab_size, seq_len, max_pred};
  const int64_t begin = rank * num_examples / world_size, end = (rank + 1) * num_examples / world_size;
  SequenceSet mine;
  int64_t seen = 0;
  for (const std::string& file : eval_files(path)) {
    if (seen >= end) break;
    const int64_t n = count_samples(file);
    const int64_t lo = std::max(begin, seen), hi = std::min(end, seen + n);
    if (lo < hi) {
      Format layout;
      SequenceSet part = read_shard(file, lim, lo - seen, hi - lo, &layout);
      if (layout == Format::packed) throw DataError(fmt::format("{}: eval data must be unpacked", file));
      for (int64_t i = 0; i < part.size(); ++i) mine.append(part, i);
    }
    seen += n;
  }
  if (seen < end)
    throw DataError(fmt::format("{}: {} eval samples, fewer than num_eval_examples {}", path, seen, num_examples));
  EvalSet out;
  out.num_sequences = mine.size();
  out.num_masked = static_cast<int64_t>(mine.mlm_ids.size());
  for (int64_t first = 0; first < mine.size(); first += batch_size) {
    Batch b;
    assemble_batch(mine, nullptr, first, static_cast<int>(std::min<int64_t>(batch_size, mine.size() - first)),
                   seq_len, b);
    out.batches.push_back(std::move(b));
  }
  return out;
}

}  // namespace bert::data
