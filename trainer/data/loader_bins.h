// Samsung's 4-bin dataset for the loader: a directory whose numeric subdirectories (128/ 256/
// 384/ 512/, from `bert-data split4bin --shards N`) hold equally many part* shards. Shard k of
// every bin forms group k; the loader hands groups out as it hands out shards (per-epoch order,
// rank r takes r, r+W, ...). Inside a group each batch takes a fixed count from every bin, each
// bin's samples shuffled: so every rank's batches carry the same mix of lengths (the balance of
// Samsung's SplitRandomSampler, utils.py). Batches per group = min over bins of n_b / count_b; the
// rest of a group is left out that epoch, as there.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace bert::data {

struct BinGroups {
  std::vector<std::string> bins;                 // bin directory names, numeric order ("128", ...)
  std::vector<std::vector<std::string>> groups;  // groups[k][b] = shard k of bin b
  bool empty() const { return groups.empty(); }
};

// The bin layout of `dir`, or empty when `dir` is not one (DataError for a malformed one: bins
// with different shard counts, stray part* files beside the bins).
BinGroups find_bin_groups(const std::string& dir);

// Per-batch count of each bin: `given` if not empty (must sum to batch_size), otherwise the bins'
// shares of group 0 (largest remainder, every non-empty bin at least 1 when batch_size allows).
std::vector<int> bin_batch_counts(const std::vector<int64_t>& bin_sizes, int batch_size, const std::vector<int>& given,
                                  const std::string& where);

// The order of a group's sequences (bins concatenated: bin b is [first[b], first[b+1])): each bin
// shuffled from (seed, epoch, group, b), then batch j = count_b items of every bin in bin order.
std::vector<int64_t> balanced_order(const std::vector<int64_t>& first, const std::vector<int>& counts, uint64_t seed,
                                    int epoch, int64_t group);

}  // namespace bert::data
