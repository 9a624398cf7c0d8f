// reshard / chop, shuffle_samples and pick_eval (dataset_tools.h): NVIDIA's deterministic dataset
// steps, streamed so that memory stays bounded at MLPerf scale.
#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <limits>
#include <memory>
#include <numeric>

#include "dataset/dataset_tools.h"
#include "dataset/spill.h"
#include "dataset/text/py_random.h"
#include "dataset/tool_helpers.h"
#include "dataset/worker_pool.h"
#include "formats/data_error.h"
#include "formats/shard_write.h"
#include "trainer/data/loader.h"  // pick_eval_rows: the rule the eval loader reads by

namespace bert::data {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kReadBlock = 32768;  // samples read from an input at a time
constexpr int64_t kWriteBlock = 4096;  // fixed rows buffered before a write

int64_t count_unpacked(const std::string& f) {
  if (shard_info(f).format == Format::packed)
    throw DataError(fmt::format("{}: needs unpacked (fixed or varlength) shards", f));
  return count_samples(f);
}

// Receives samples in order and writes them as consecutive output files of the given sizes.
class ShardCutter {
 public:
  ShardCutter(std::vector<std::string> names, std::vector<int64_t> sizes, Format format, const Limits& lim,
              Progress progress)
      : names_(std::move(names)), sizes_(std::move(sizes)), format_(format), lim_(lim), progress_(std::move(progress)) {
    open_next();
  }

  void add(const SequenceSet& s, int64_t first, int64_t count) {
    while (count > 0) {
      const int64_t take = std::min(count, sizes_[k_] - filled_);
      for (int64_t i = first; i < first + take; ++i) buf_.append(s, i);
      if (fixed_ && buf_.size() >= kWriteBlock) flush_fixed();
      filled_ += take;
      first += take;
      count -= take;
      if (filled_ == sizes_[k_]) close_current();
    }
  }

  bool done() const { return k_ == sizes_.size(); }

 private:
  void open_next() {  // sizes are >= 1 (checked by the callers)
    if (k_ < sizes_.size() && format_ == Format::fixed)
      fixed_ = std::make_unique<FixedShardWriter>(names_[k_], sizes_[k_], lim_);
  }
  void flush_fixed() {
    fixed_->write(buf_);
    buf_ = SequenceSet{};
  }
  void close_current() {
    if (fixed_) {
      flush_fixed();
      fixed_->finish();
      fixed_.reset();
    } else {
      write_shard(names_[k_], buf_, format_, lim_);
      buf_ = SequenceSet{};
    }
    ++k_;
    filled_ = 0;
    tick(progress_, static_cast<int64_t>(k_), static_cast<int64_t>(sizes_.size()));
    open_next();
  }

  std::vector<std::string> names_;
  std::vector<int64_t> sizes_;
  Format format_;
  Limits lim_;
  Progress progress_;
  size_t k_ = 0;
  int64_t filled_ = 0;
  std::unique_ptr<FixedShardWriter> fixed_;
  SequenceSet buf_;
};

// Output shard k takes global samples [start_k, start_k + sizes[k]) of the concatenated inputs;
// the shards are independent tasks (worker processes when jobs > 1), each reading only its range.
void regroup(const std::vector<std::string>& in, const std::string& out_dir, const std::vector<int64_t>& sizes,
             Format format, const Limits& limits, const Progress& progress, const char* command, int jobs) {
  if (format == Format::packed) throw DataError(fmt::format("{}: writes fixed or varlength shards (pack afterwards)", command));
  const Limits out_lim = output_limits(in, format, limits);
  std::vector<int64_t> in_first{0};  // input f holds global samples [in_first[f], in_first[f+1])
  for (const auto& f : in) in_first.push_back(in_first.back() + count_unpacked(f));
  make_shard_dir(out_dir, command);
  const int shards = static_cast<int>(sizes.size());
  std::vector<std::string> names;
  std::vector<int64_t> start{0};
  for (int k = 0; k < shards; ++k) {
    names.push_back((fs::path(out_dir) / fmt::format("part_{:05d}_of_{:05d}.hdf5", k, shards)).string());
    start.push_back(start.back() + sizes[static_cast<size_t>(k)]);
  }
  auto task = [&](int k) -> int64_t {
    ShardCutter cut({names[static_cast<size_t>(k)]}, {sizes[static_cast<size_t>(k)]}, format, out_lim, nullptr);
    for (size_t f = 0; f < in.size(); ++f) {
      const int64_t a = std::max(start[k], in_first[f]), b = std::min(start[k + 1], in_first[f + 1]);
      for (int64_t first = a; first < b; first += kReadBlock) {
        const SequenceSet s = read_shard(in[f], limits, first - in_first[f], std::min(kReadBlock, b - first));
        cut.add(s, 0, s.size());
      }
    }
    if (!cut.done()) throw DataError(fmt::format("{}: inputs changed while reading (fewer samples)", command));
    return sizes[static_cast<size_t>(k)];
  };
  try {
    run_in_workers(shards, jobs, task, nullptr, [&](const PoolProgress& p) { tick(progress, p.done, p.total); });
  } catch (...) {
    for (const auto& n : names) {
      std::error_code ec;
      fs::remove(n + ".tmp", ec);
    }
    throw;
  }
}

int64_t total_samples(const std::vector<std::string>& in) {
  int64_t total = 0;
  for (const auto& f : in) total += count_unpacked(f);
  return total;
}

}  // namespace

void reshard(const std::vector<std::string>& in, const std::string& out_dir, int shards, Format format,
             const Limits& limits, const Progress& progress, int jobs) {
  if (shards < 1) throw DataError(fmt::format("reshard: --shards {} < 1", shards));
  const int64_t total = total_samples(in);
  if (total < shards) throw DataError(fmt::format("reshard: {} samples cannot fill {} shards", total, shards));
  std::vector<int64_t> sizes;
  for (int k = 0; k < shards; ++k) sizes.push_back((k + 1) * total / shards - k * total / shards);
  regroup(in, out_dir, sizes, format, limits, progress, "reshard", jobs);
}

std::vector<int64_t> chop_sizes(int64_t total, int shards) {
  const int64_t nominal = (total + shards - 1) / shards, excess = shards * nominal - total;
  std::vector<int64_t> sizes(static_cast<size_t>(shards), nominal);
  for (int64_t k = 0; k < excess; ++k) sizes[static_cast<size_t>(k)] = nominal - 1;
  return sizes;
}

void chop(const std::vector<std::string>& in, const std::string& out_dir, int shards, Format format,
          const Limits& limits, const Progress& progress, int jobs) {
  if (shards < 1) throw DataError(fmt::format("chop: --shards {} < 1", shards));
  const int64_t total = total_samples(in);
  const std::vector<int64_t> sizes = chop_sizes(total, shards);
  if (sizes.front() < 1) throw DataError(fmt::format("chop: {} samples cannot fill {} shards", total, shards));
  regroup(in, out_dir, sizes, format, limits, progress, "chop", jobs);
}

void shuffle_samples(const std::vector<std::string>& in, const std::string& out_dir, uint64_t seed, Format format,
                     const Limits& limits, const Progress& progress) {
  if (format == Format::packed) throw DataError("shuffle: writes fixed or varlength shards (pack afterwards)");
  const Limits out_lim = output_limits(in, format, limits);
  std::vector<int64_t> first{0};  // input (and output) file k: global samples [first[k], first[k+1])
  for (const auto& f : in) first.push_back(first.back() + count_unpacked(f));
  const int64_t total = first.back();
  constexpr uint32_t kFlag = 0x80000000u;
  if (total >= static_cast<int64_t>(kFlag)) throw DataError(fmt::format("shuffle: {} samples exceed 2^31", total));
  const int M = static_cast<int>(in.size());
  const int64_t steps = 2 * static_cast<int64_t>(M);
  int64_t done = 0;

  // perm[p] = global sample at shuffled position p (random.Random(seed).shuffle of the pairs);
  // then inverted in place (cycle walk, kFlag marks finished entries): pos[g] = p.
  std::vector<uint32_t> perm(static_cast<size_t>(total));
  std::iota(perm.begin(), perm.end(), 0u);
  text::PyRandom(seed).shuffle(perm.data(), perm.size());
  for (uint32_t i = 0; i < perm.size(); ++i) {
    if (perm[i] & kFlag) continue;
    uint32_t x = i, next = perm[i];
    while (next != i) {
      const uint32_t after = perm[next];
      perm[next] = x | kFlag;
      x = next;
      next = after;
    }
    perm[i] = x | kFlag;
  }
  for (auto& v : perm) v &= ~kFlag;
  const std::vector<uint32_t>& pos = perm;

  make_shard_dir(out_dir, "shuffle");
  const std::string spill_dir = (fs::path(out_dir) / ".shuffle-spill").string();
  SpillCleanup cleanup(spill_dir);
  std::error_code ec;
  fs::remove_all(spill_dir, ec);
  make_dir(spill_dir);
  SpillFiles spill(spill_dir, M);
  for (int k = 0; k < M; ++k) {
    const int64_t n = first[k + 1] - first[k];
    for (int64_t b = 0; b < n; b += kReadBlock) {
      const SequenceSet s = read_shard(in[k], limits, b, std::min(kReadBlock, n - b));
      for (int64_t i = 0; i < s.size(); ++i) {
        const int64_t p = pos[static_cast<size_t>(first[k] + b + i)];
        const int m = static_cast<int>(std::upper_bound(first.begin(), first.end(), p) - first.begin()) - 1;
        spill.add(m,
                  RecordHead{static_cast<uint32_t>(p - first[m]), 0, static_cast<uint16_t>(s.length(i)),
                             static_cast<uint16_t>(s.num_masked(i)), s.nsp_labels[i]},
                  s, i);
      }
    }
    tick(progress, ++done, steps);
  }
  spill.flush();
  for (int m = 0; m < M; ++m) {
    SequenceSet s = assemble_shard(spill.path(m), first[m + 1] - first[m]);
    fs::remove(spill.path(m), ec);
    s.pack_off.clear();  // one sequence per record: unpacked
    const std::string out = (fs::path(out_dir) / base_name(in[m])).string();
    write_shard(out, s, format, out_lim);
    cleanup.wrote(out);
    tick(progress, ++done, steps);
  }
  cleanup.release();
}

std::vector<int64_t> split4bin_chop(const std::vector<std::string>& in, const std::string& out_dir, int shards,
                                    const Limits& limits, const Progress& progress) {
  if (shards < 1) throw DataError(fmt::format("split4bin: --shards {} < 1", shards));
  const ShardInfo info = shard_info(in.front());
  if (info.format == Format::packed) throw DataError(fmt::format("{}: needs unpacked (fixed or varlength) shards", in.front()));
  Limits lim = limits;
  if (info.format == Format::fixed) lim.seq_len = info.width, lim.max_pred = info.mlm_width;
  if (lim.seq_len <= 0) lim.seq_len = 512;
  auto bin_of = [&](int len) {
    int b = 0;
    while (b < 3 && len > lim.seq_len * (b + 1) / 4) ++b;
    return b;
  };
  std::vector<int64_t> counts(4, 0);
  for (const auto& f : in)
    for (int16_t len : read_lengths(f, lim)) ++counts[bin_of(len)];
  std::vector<std::unique_ptr<ShardCutter>> cutters;
  for (int b = 0; b < 4; ++b) {
    const std::vector<int64_t> sizes = chop_sizes(counts[b], shards);
    if (sizes.front() < 1)
      throw DataError(fmt::format("split4bin: bin {} has {} sequences, too few for {} shards", lim.seq_len * (b + 1) / 4,
                                  counts[b], shards));
    const std::string dir = (fs::path(out_dir) / std::to_string(lim.seq_len * (b + 1) / 4)).string();
    make_shard_dir(dir, "split4bin");
    std::vector<std::string> names;
    for (int k = 0; k < shards; ++k) names.push_back((fs::path(dir) / fmt::format("part_{}_of_{}.hdf5", k, shards)).string());
    cutters.push_back(std::make_unique<ShardCutter>(names, sizes, info.format, lim, nullptr));
  }
  int64_t done = 0;
  for (const auto& f : in) {
    const int64_t n = count_unpacked(f);
    for (int64_t first = 0; first < n; first += kReadBlock) {
      const SequenceSet s = read_shard(f, lim, first, std::min(kReadBlock, n - first));
      for (int64_t i = 0; i < s.size(); ++i) cutters[bin_of(s.length(i))]->add(s, i, 1);
    }
    tick(progress, ++done, static_cast<int64_t>(in.size()));
  }
  for (const auto& c : cutters)
    if (!c->done()) throw DataError("split4bin: inputs changed while reading (fewer samples)");
  return counts;
}

void pick_eval(const std::vector<std::string>& in, const std::string& out, int64_t count, Format format,
               const Limits& limits) {
  if (format == Format::packed) throw DataError("pick-eval: writes fixed or varlength files");
  if (count < 1) throw DataError(fmt::format("pick-eval: --count {} < 1", count));
  const Limits out_lim = output_limits(in, format, limits);
  const std::vector<int64_t> rows = pick_eval_rows(total_samples(in), count, 0, count);
  SequenceSet picked;
  int64_t base = 0;
  size_t r = 0;
  for (const auto& f : in) {
    const int64_t n = count_unpacked(f);
    for (int64_t b = 0; b < n && r < rows.size(); b += kReadBlock) {
      const int64_t len = std::min(kReadBlock, n - b);
      if (rows[r] >= base + b + len) continue;
      const SequenceSet s = read_shard(f, limits, b, len);
      for (; r < rows.size() && rows[r] < base + b + len; ++r) picked.append(s, rows[r] - base - b);
    }
    base += n;
  }
  make_dir(fs::path(out).parent_path().empty() ? "." : fs::path(out).parent_path().string());
  write_shard(out, picked, format, out_lim);
}

}  // namespace bert::data
