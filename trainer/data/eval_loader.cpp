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

std::vector<int64_t> pick_eval_rows(int64_t total, int64_t count, int64_t first, int64_t last) {
  if (total < count) throw DataError(fmt::format("pick-eval: {} samples, fewer than the {} to pick", total, count));
  std::vector<int64_t> rows;
  for (int64_t i = first; i < last; ++i)  // Python: int(i * num_samples / count), float division
    rows.push_back(static_cast<int64_t>(static_cast<double>(i * total) / static_cast<double>(count)));
  return rows;
}

EvalSet load_eval(const std::string& path, int vocab_size, int seq_len, int max_pred, int64_t num_examples,
                  int rank, int world_size, int batch_size) {
  if (world_size < 1 || rank < 0 || rank >= world_size || batch_size < 1 || num_examples < 1)
    throw DataError(fmt::format("{}: bad eval request (rank {}, world {}, batch {}, examples {})", path, rank,
                                world_size, batch_size, num_examples));
  const Limits lim{vocab_size, seq_len, max_pred};
  const std::vector<std::string> files = eval_files(path);
  std::vector<int64_t> counts;
  int64_t total = 0;
  for (const std::string& file : files) total += counts.emplace_back(count_samples(file));
  if (total < num_examples)
    throw DataError(fmt::format("{}: {} eval samples, fewer than num_eval_examples {}", path, total, num_examples));
  // MLPerf's eval set is rows int(i*N/num_examples) of the N given (pick_eval_samples.py); a file of
  // exactly num_examples rows (what pick-eval wrote) is taken whole. This rank takes its slice of i.
  const std::vector<int64_t> rows = pick_eval_rows(total, num_examples, rank * num_examples / world_size,
                                                   (rank + 1) * num_examples / world_size);
  SequenceSet mine;
  int64_t base = 0;
  size_t r = 0;
  for (size_t f = 0; f < files.size(); base += counts[f], ++f) {
    while (r < rows.size() && rows[r] < base + counts[f]) {  // blocks of rows, as pick-eval reads them
      const int64_t lo = rows[r] - base, len = std::min<int64_t>(4096, counts[f] - lo);
      Format layout;
      const SequenceSet part = read_shard(files[f], lim, lo, len, &layout);
      if (layout == Format::packed) throw DataError(fmt::format("{}: eval data must be unpacked", files[f]));
      for (; r < rows.size() && rows[r] < base + lo + len; ++r) mine.append(part, rows[r] - base - lo);
    }
  }
  EvalSet out;
  out.total_available = total;
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
