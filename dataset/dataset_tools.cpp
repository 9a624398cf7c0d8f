#include "dataset/dataset_tools.h"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <sstream>

#include "formats/data_error.h"
#include "formats/shard_write.h"
#include "dataset/md5.h"
#include "dataset/packing.h"
#include "dataset/tool_helpers.h"
#include "dataset/worker_pool.h"

namespace bert::data {

namespace fs = std::filesystem;

void make_dir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw DataError(fmt::format("{}: cannot create directory: {}", dir, ec.message()));
}

std::string base_name(const std::string& path) { return fs::path(path).filename().string(); }

void tick(const Progress& p, int64_t done, int64_t total) {
  if (p) p(done, total);
}

SequenceSet read_unpacked(const std::string& path, const Limits& lim, const char* what) {
  Format layout;
  SequenceSet s = read_shard(path, lim, 0, -1, &layout);
  if (layout == Format::packed) throw DataError(fmt::format("{}: {} needs unpacked (fixed or varlength) shards", path, what));
  return s;
}

// Fixed output needs L and P: from the flags, else from a fixed input file's widths.
Limits output_limits(const std::vector<std::string>& in, Format format, Limits lim) {
  if (format != Format::fixed || (lim.seq_len > 0 && lim.max_pred > 0)) return lim;
  const ShardInfo info = shard_info(in.front());
  if (info.format != Format::fixed)
    throw DataError(fmt::format("{}: writing the fixed layout from {} input needs --seq-len and --max-pred", in.front(),
                                format_name(info.format)));
  if (lim.seq_len <= 0) lim.seq_len = info.width;
  if (lim.max_pred <= 0) lim.max_pred = info.mlm_width;
  return lim;
}

void make_shard_dir(const std::string& dir, const char* command) {
  make_dir(dir);
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("part", 0) == 0)
      throw DataError(fmt::format("{}: already holds shards ({}); {} writes into a directory without part* files "
                                  "(the loader reads every one, so old shards would be trained on again)",
                                  dir, name, command));
  }
}

std::vector<std::string> input_files(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    auto files = list_shards(path);
    if (files.empty()) throw DataError(fmt::format("{}: no shards (files named part*)", path));
    return files;
  }
  if (!fs::is_regular_file(path, ec)) throw DataError(fmt::format("{}: no such file or directory", path));
  return {path};
}

DatasetSummary verify_files(const std::vector<std::string>& files, const Limits& limits, const Progress& progress) {
  DatasetSummary sum;
  for (const std::string& f : files) {
    const SequenceSet s = read_shard(f, limits);
    ++sum.files;
    sum.samples += s.num_packs();
    sum.sequences += s.size();
    sum.tokens += s.total_tokens();
    sum.masked += static_cast<int64_t>(s.mlm_ids.size());
    for (int64_t i = 0; i < s.size(); ++i) {
      const size_t len = static_cast<size_t>(s.length(i));
      if (sum.length_hist.size() <= len) sum.length_hist.resize(len + 1, 0);
      ++sum.length_hist[len];
      if (!s.packed()) sum.max_length = std::max(sum.max_length, static_cast<int>(len));
    }
    for (int64_t p = 0; s.packed() && p < s.num_packs(); ++p)
      sum.max_length = std::max(sum.max_length, static_cast<int>(s.tok_off[s.pack_off[p + 1]] - s.tok_off[s.pack_off[p]]));
    tick(progress, sum.files, static_cast<int64_t>(files.size()));
  }
  return sum;
}

std::string chk_line(const std::string& path) {
  const ShardInfo info = shard_info(path);
  const SequenceSet s = read_shard(path, Limits{0, 0, 0});
  std::string outer(1, '[');
  std::string row;
  for (int64_t r = 0; r < s.num_packs(); ++r) {
    const int64_t a = s.tok_off[s.packed() ? s.pack_off[r] : r], b = s.tok_off[s.packed() ? s.pack_off[r + 1] : r + 1];
    const int64_t width = info.format == Format::fixed ? info.width : b - a;
    row.assign(1, '[');
    for (int64_t t = 0; t < width; ++t)
      fmt::format_to(std::back_inserter(row), "{}{}", t ? ", " : "", a + t < b ? s.input_ids[a + t] : 0);
    row.push_back(']');
    if (r) outer += ", ";
    outer += '\'';
    outer += md5_hex(row);
    outer += '\'';
  }
  outer.push_back(']');
  return fmt::format("{}\t{}", base_name(path), md5_hex(outer));
}

void write_chk(const std::vector<std::string>& files, const std::string& chk_path) {
  const std::string tmp = chk_path + ".tmp";
  {
    std::ofstream out(tmp);
    for (const auto& f : files) out << chk_line(f) << "\n";
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw DataError(fmt::format("{}: write failed", tmp));
    }
  }
  std::error_code ec;
  fs::rename(tmp, chk_path, ec);
  if (ec) throw DataError(fmt::format("{}: cannot rename from {}: {}", chk_path, tmp, ec.message()));
}

std::vector<std::string> check_chk(const std::vector<std::string>& files, const std::string& chk_path) {
  std::ifstream in(chk_path);
  if (!in) throw DataError(fmt::format("{}: cannot open checksum list", chk_path));
  std::map<std::string, std::string> want;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    std::istringstream ls(line);
    std::string name, sum;
    if (!(ls >> name >> sum)) throw DataError(fmt::format("{}:{}: expected '<file> <md5>'", chk_path, n));
    want[name] = sum;
  }
  std::vector<std::string> problems;
  for (const std::string& f : files) {
    auto it = want.find(base_name(f));
    if (it == want.end()) {
      problems.push_back(fmt::format("{}: not listed in {}", f, chk_path));
      continue;
    }
    const std::string got = chk_line(f).substr(base_name(f).size() + 1);
    if (got != it->second) problems.push_back(fmt::format("{}: md5 {} but {} lists {}", f, got, chk_path, it->second));
  }
  return problems;
}

void convert_files(const std::vector<std::string>& in, const std::string& out_dir, Format format, const Limits& limits,
                   const Progress& progress, int jobs) {
  if (format == Format::packed) throw DataError("convert: use pack to write packed shards");
  const Limits out_lim = output_limits(in, format, limits);
  make_shard_dir(out_dir, "to-varlength");
  auto out = [&](size_t k) { return (fs::path(out_dir) / base_name(in[k])).string(); };
  try {
    run_in_workers(
        static_cast<int>(in.size()), jobs,
        [&](int k) -> int64_t {
          write_shard(out(static_cast<size_t>(k)), read_unpacked(in[static_cast<size_t>(k)], limits, "convert"), format,
                      out_lim);
          return 0;
        },
        nullptr, [&](const PoolProgress& p) { tick(progress, p.done, p.total); });
  } catch (...) {
    for (size_t k = 0; k < in.size(); ++k) {
      std::error_code ec;
      fs::remove(out(k) + ".tmp", ec);
    }
    throw;
  }
}

std::vector<int64_t> split4bin(const std::vector<std::string>& in, const std::string& out_dir, const Limits& limits,
                               const Progress& progress) {
  std::vector<int64_t> counts(4, 0);
  int64_t done = 0;
  for (const auto& f : in) {
    const ShardInfo info = shard_info(f);
    Limits lim = limits;
    if (info.format == Format::fixed) lim.seq_len = info.width, lim.max_pred = info.mlm_width;
    if (lim.seq_len <= 0) lim.seq_len = 512;
    const SequenceSet s = read_unpacked(f, lim, "split4bin");
    std::vector<SequenceSet> bins(4);
    for (int64_t i = 0; i < s.size(); ++i) {
      int b = 0;
      while (b < 3 && s.length(i) > lim.seq_len * (b + 1) / 4) ++b;
      bins[b].append(s, i);
      ++counts[b];
    }
    for (int b = 0; b < 4; ++b) {
      const std::string dir = (fs::path(out_dir) / std::to_string(lim.seq_len * (b + 1) / 4)).string();
      make_dir(dir);
      write_shard((fs::path(dir) / base_name(f)).string(), bins[b], info.format, lim);
    }
    tick(progress, ++done, static_cast<int64_t>(in.size()));
  }
  return counts;
}

double PackSummary::efficiency() const {
  return packs ? static_cast<double>(tokens) / (static_cast<double>(packs) * seq_len) : 0.0;
}
double PackSummary::sequences_per_pack() const { return packs ? static_cast<double>(sequences) / packs : 0.0; }

PackSummary pack_files(const std::vector<std::string>& in, const std::string& out_dir, const Limits& limits,
                       int max_per_pack, uint64_t seed, const Progress& progress) {
  if (limits.seq_len <= 0) throw DataError("pack: --seq-len must be positive");
  make_shard_dir(out_dir, "pack");
  PackSummary sum;
  sum.seq_len = limits.seq_len;
  for (size_t k = 0; k < in.size(); ++k) {
    const SequenceSet s = read_unpacked(in[k], limits, "pack");
    const SequenceSet packed = pack_sequences(s, limits.seq_len, max_per_pack, seed + k);
    write_shard((fs::path(out_dir) / fmt::format("part_{:05d}", k)).string(), packed, Format::packed, limits);
    sum.sequences += packed.size();
    sum.packs += packed.num_packs();
    sum.tokens += packed.total_tokens();
    tick(progress, static_cast<int64_t>(k + 1), static_cast<int64_t>(in.size()));
  }
  sum.files = static_cast<int>(in.size());
  return sum;
}

}  // namespace bert::data
