#include "formats/shard_io.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>

#include "formats/crash_guard.h"
#include "formats/h5_util.h"
#include "formats/shard_read.h"

namespace bert::data {

namespace fs = std::filesystem;
using h5::fail;
using h5::Handle;

namespace {
Format detect_open(hid_t f, const std::string& path) {
  if (h5::has_dataset(f, "packed_input_len")) return Format::packed;
  Handle ids = h5::open_dataset(f, path, "input_ids");
  if (h5::type_info(ids).vlen) return Format::varlength;
  if (h5::has_dataset(f, "input_mask")) return Format::fixed;
  fail(path, "input_mask", "missing (fixed-length input_ids without input_mask)");
}

SequenceSet read_open(const std::string& path, const Limits& limits, int64_t first, int64_t count, Format* layout) {
  Handle f = h5::open_file(path);
  Format found = detect_open(f, path);
  if (layout) *layout = found;
  switch (found) {
    case Format::fixed: return layouts::read_fixed(f, path, limits, first, count);
    case Format::varlength: return layouts::read_varlength(f, path, limits, first, count);
    case Format::packed: return layouts::read_packed(f, path, limits, first, count);
  }
  fail(path, "", "unknown layout");
}
}  // namespace

Format detect_format(const std::string& path) {
  ReadingFile guard(path);
  Handle f = h5::open_file(path);
  return detect_open(f, path);
}

SequenceSet read_shard(const std::string& path, const Limits& limits, int64_t first, int64_t count,
                       Format* layout) {
  ReadingFile guard(path);
  try {
    return read_open(path, limits, first, count, layout);
  } catch (const std::bad_alloc&) {
    throw DataError(fmt::format("{}: corrupt file: implausible sizes (out of memory)", path));
  } catch (const std::length_error&) {
    throw DataError(fmt::format("{}: corrupt file: implausible sizes", path));
  }
}

std::vector<int16_t> read_lengths(const std::string& path, const Limits& limits) {
  ReadingFile guard(path);
  Handle f = h5::open_file(path);
  switch (detect_open(f, path)) {
    case Format::varlength: return layouts::lengths_varlength(f, path, limits);
    case Format::fixed: return layouts::lengths_fixed(f, path, limits);
    case Format::packed: break;
  }
  throw DataError(fmt::format("{}: needs unpacked (fixed or varlength) shards", path));
}

int64_t count_samples(const std::string& path) {
  ReadingFile guard(path);
  Handle f = h5::open_file(path);
  detect_open(f, path);
  Handle ids = h5::open_dataset(f, path, "input_ids");
  auto d = h5::dims(ids);
  if (d.empty()) fail(path, "input_ids", "scalar dataset");
  return static_cast<int64_t>(d[0]);
}

ShardInfo shard_info(const std::string& path) {
  ReadingFile guard(path);
  Handle f = h5::open_file(path);
  ShardInfo info;
  info.format = detect_open(f, path);
  Handle ids = h5::open_dataset(f, path, "input_ids");
  auto d = h5::dims(ids);
  if (d.empty()) fail(path, "input_ids", "scalar dataset");
  info.samples = static_cast<int64_t>(d[0]);
  if (info.format == Format::fixed && d.size() == 2) {
    info.width = static_cast<int>(d[1]);
    Handle pos = h5::open_dataset(f, path, "masked_lm_positions");
    auto dp = h5::dims(pos);
    if (dp.size() == 2) info.mlm_width = static_cast<int>(dp[1]);
  }
  return info;
}

std::vector<std::string> list_shards(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw DataError(fmt::format("{}: not a directory", dir));
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file()) continue;
    std::string name = e.path().filename().string();
    if (name.rfind("part", 0) != 0) continue;
    std::string ext = e.path().extension().string();
    if (ext == ".chk" || ext == ".tmp" || ext == ".lst" || ext == ".json" || ext == ".md5") continue;
    out.push_back(e.path().string());
  }
  if (ec) throw DataError(fmt::format("{}: cannot list: {}", dir, ec.message()));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace bert::data
