#include "trainer/data/loader_bins.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <numeric>

#include "formats/data_error.h"
#include "trainer/data/rng.h"
#include "formats/shard_io.h"

namespace bert::data {

namespace fs = std::filesystem;

BinGroups find_bin_groups(const std::string& dir) {
  BinGroups out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  std::vector<std::pair<long, std::string>> bins;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_directory() && !name.empty() && std::all_of(name.begin(), name.end(), ::isdigit))
      bins.emplace_back(std::stol(name), name);
  }
  if (bins.empty()) return out;
  if (!list_shards(dir).empty())
    throw DataError(fmt::format("{}: holds both part* shards and length-bin folders ({}/); use one layout", dir,
                                bins.front().second));
  std::sort(bins.begin(), bins.end());
  std::vector<std::vector<std::string>> per_bin;
  for (const auto& [edge, name] : bins) {
    out.bins.push_back(name);
    per_bin.push_back(list_shards((fs::path(dir) / name).string()));
    if (per_bin.back().size() != per_bin.front().size())
      throw DataError(fmt::format("{}/{}: {} shards, but {}/{} has {}; the bins must have as many shards each", dir, name,
                                  per_bin.back().size(), dir, out.bins.front(), per_bin.front().size()));
  }
  if (per_bin.front().empty()) throw DataError(fmt::format("{}/{}: no shards (files named part*)", dir, out.bins.front()));
  for (size_t k = 0; k < per_bin.front().size(); ++k) {
    out.groups.emplace_back();
    for (const auto& b : per_bin) out.groups.back().push_back(b[k]);
  }
  return out;
}

std::vector<int> bin_batch_counts(const std::vector<int64_t>& bin_sizes, int batch_size, const std::vector<int>& given,
                                  const std::string& where) {
  const size_t nb = bin_sizes.size();
  if (!given.empty()) {
    if (given.size() != nb || std::accumulate(given.begin(), given.end(), 0) != batch_size ||
        std::any_of(given.begin(), given.end(), [](int c) { return c < 0; }))
      throw DataError(fmt::format("{}: {} bins need {} per-batch counts >= 0 summing to the batch size {}", where, nb, nb,
                                  batch_size));
    return given;
  }
  const int64_t total = std::accumulate(bin_sizes.begin(), bin_sizes.end(), int64_t{0});
  if (total == 0) throw DataError(fmt::format("{}: the length bins hold no sequences", where));
  std::vector<int> counts(nb, 0);
  std::vector<std::pair<double, size_t>> rest;
  int used = 0;
  for (size_t b = 0; b < nb; ++b) {
    const double share = static_cast<double>(bin_sizes[b]) * batch_size / static_cast<double>(total);
    counts[b] = static_cast<int>(share);
    used += counts[b];
    rest.emplace_back(share - counts[b], b);
  }
  std::sort(rest.begin(), rest.end(), [](auto& x, auto& y) { return x.first != y.first ? x.first > y.first : x.second < y.second; });
  for (size_t i = 0; used < batch_size; ++i, ++used) ++counts[rest[i % nb].second];
  // Every non-empty bin at least once, taken from the largest count, while that stays >= 1.
  for (size_t b = 0; b < nb; ++b) {
    if (counts[b] > 0 || bin_sizes[b] == 0) continue;
    auto big = std::max_element(counts.begin(), counts.end());
    if (*big > 1) --*big, counts[b] = 1;
  }
  return counts;
}

std::vector<int64_t> balanced_order(const std::vector<int64_t>& first, const std::vector<int>& counts, uint64_t seed,
                                    int epoch, int64_t group) {
  const size_t nb = counts.size();
  std::vector<std::vector<int64_t>> perm(nb);
  int64_t batches = -1;
  for (size_t b = 0; b < nb; ++b) {
    perm[b].resize(static_cast<size_t>(first[b + 1] - first[b]));
    std::iota(perm[b].begin(), perm[b].end(), first[b]);
    Rng(std::initializer_list<uint64_t>{seed, 0x4249, static_cast<uint64_t>(epoch), static_cast<uint64_t>(group), b})
        .shuffle(perm[b].begin(), perm[b].end());
    if (counts[b] > 0) {
      const int64_t n = static_cast<int64_t>(perm[b].size()) / counts[b];
      batches = batches < 0 ? n : std::min(batches, n);
    }
  }
  std::vector<int64_t> order;
  for (int64_t j = 0; j < std::max<int64_t>(batches, 0); ++j)
    for (size_t b = 0; b < nb; ++b)
      for (int c = 0; c < counts[b]; ++c) order.push_back(perm[b][static_cast<size_t>(j * counts[b] + c)]);
  return order;
}

}  // namespace bert::data
