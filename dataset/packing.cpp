#include "dataset/packing.h"

#include <algorithm>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <numeric>
#include <vector>

#include "formats/data_error.h"
#include "trainer/data/rng.h"

namespace bert::data {

SequenceSet pack_sequences(const SequenceSet& in, int seq_len, int max_per_pack, uint64_t seed) {
  if (max_per_pack < 1) throw DataError("pack: max sequences per pack must be >= 1");
  std::vector<int64_t> order(static_cast<size_t>(in.size()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return in.length(a) > in.length(b); });
  // Open packs by remaining room: bucket[r] lists packs with r free tokens and room for more sequences.
  std::vector<std::vector<int64_t>> bucket(static_cast<size_t>(seq_len) + 1);
  std::vector<std::vector<int64_t>> members;
  std::vector<int> room;
  for (int64_t i : order) {
    const int len = in.length(i);
    if (len > seq_len) throw DataError(fmt::format("pack: sequence {} has {} tokens > seq_len {}", i, len, seq_len));
    int64_t p = -1;
    for (int r = len; r <= seq_len && p < 0; ++r)
      if (!bucket[r].empty()) {
        p = bucket[r].back();
        bucket[r].pop_back();
      }
    if (p < 0) {
      p = static_cast<int64_t>(members.size());
      members.emplace_back();
      room.push_back(seq_len);
    }
    members[p].push_back(i);
    room[p] -= len;
    if (room[p] > 0 && static_cast<int>(members[p].size()) < max_per_pack) bucket[room[p]].push_back(p);
  }
  std::vector<int64_t> pack_order(members.size());
  std::iota(pack_order.begin(), pack_order.end(), 0);
  Rng(std::initializer_list<uint64_t>{seed, 0x7061636b}).shuffle(pack_order.begin(), pack_order.end());
  SequenceSet out;
  out.reserve(in.size(), in.total_tokens(), static_cast<int64_t>(in.mlm_ids.size()));
  out.pack_off.assign(1, 0);
  for (int64_t p : pack_order) {
    for (int64_t i : members[p]) out.append(in, i);
    out.pack_off.push_back(out.size());
  }
  return out;
}

double packing_efficiency(const SequenceSet& packed, int seq_len) {
  if (packed.num_packs() == 0) return 0.0;
  return static_cast<double>(packed.total_tokens()) / (static_cast<double>(packed.num_packs()) * seq_len);
}

int PackStrategy::tokens() const { return std::accumulate(lengths.begin(), lengths.end(), 0); }

int64_t count_packs(const std::vector<PackStrategy>& strategies) {
  int64_t n = 0;
  for (const auto& s : strategies) n += s.count;
  return n;
}

namespace {

constexpr int kPricingRounds = 100;
constexpr double kPriceStep = 0.2;

// The fullest pack (l1 plus up to max_per_pack-1 sequences no longer than l1, each the longest
// available that fits after the one before) from the counts left; at equal fill the partners with
// the lowest total price win. Returns the lengths in descending order.
std::vector<int> best_completion(const std::vector<int64_t>& left, const std::vector<double>& price, int l1,
                                 int seq_len, int max_per_pack) {
  const int room = seq_len - l1;
  int best2 = 0, best3 = 0, best_fill = l1;
  double best_price = 0.0;
  for (int l2 = std::min(l1, room); max_per_pack >= 2 && l2 >= 1; --l2) {
    if (2 * l2 <= room && l1 + 2 * l2 < best_fill) break;  // nothing shorter reaches best_fill
    if (left[l2] < 1 + (l2 == l1)) continue;
    int l3 = 0;
    for (int x = std::min(l2, room - l2); max_per_pack >= 3 && x >= 1; --x)
      if (left[x] >= 1 + (x == l2) + (x == l1)) {
        l3 = x;
        break;
      }
    const int fill = l1 + l2 + l3;
    const double cost = price[l2] + (l3 ? price[l3] : 0.0);
    if (fill > best_fill || (fill == best_fill && cost < best_price))
      best_fill = fill, best_price = cost, best2 = l2, best3 = l3;
  }
  std::vector<int> lengths{l1};
  if (best2) lengths.push_back(best2);
  if (best3) lengths.push_back(best3);
  return lengths;
}

// One greedy pass: lengths longest first, each with its best completion, in bulk (the same choice
// would be made again for every copy while the counts last). `stranded[L]` (if given) receives how
// many sequences of length L ended in packs that are not full.
std::map<std::vector<int>, int64_t> greedy(const std::vector<int64_t>& hist, const std::vector<double>& price,
                                           int seq_len, int max_per_pack, std::vector<int64_t>* stranded) {
  std::vector<int64_t> left(static_cast<size_t>(seq_len) + 1, 0);
  std::copy(hist.begin(), hist.begin() + static_cast<std::ptrdiff_t>(std::min(hist.size(), left.size())), left.begin());
  std::map<std::vector<int>, int64_t> shapes;
  for (int l1 = seq_len; l1 >= 1; --l1) {
    while (left[l1] > 0) {
      const std::vector<int> lengths = best_completion(left, price, l1, seq_len, max_per_pack);
      int64_t copies = std::numeric_limits<int64_t>::max();
      for (int x : lengths) copies = std::min(copies, left[x] / std::count(lengths.begin(), lengths.end(), x));
      const bool full = std::accumulate(lengths.begin(), lengths.end(), 0) == seq_len;
      for (int x : lengths) {
        left[x] -= copies;
        if (stranded && !full) (*stranded)[x] += copies;
      }
      shapes[lengths] += copies;
    }
  }
  return shapes;
}

int64_t packs_of(const std::map<std::vector<int>, int64_t>& shapes) {
  int64_t n = 0;
  for (const auto& [lengths, count] : shapes) n += count;
  return n;
}

}  // namespace

std::vector<PackStrategy> solve_packing(const std::vector<int64_t>& hist, int seq_len, int max_per_pack) {
  if (max_per_pack < 1) throw DataError("pack: max sequences per pack must be >= 1");
  if (seq_len < 1) throw DataError("pack: seq_len must be >= 1");
  for (size_t len = 0; len < hist.size(); ++len) {
    if (hist[len] < 0) throw DataError(fmt::format("pack: negative count at length {}", len));
    if (hist[len] > 0 && (len == 0 || len > static_cast<size_t>(seq_len)))
      throw DataError(fmt::format("pack: {} sequence(s) of length {} outside [1, seq_len {}]", hist[len], len, seq_len));
  }
  // The search is over up to 3 sequences per pack (NVIDIA's setting); a larger max_per_pack is used as 3.
  const int chosen = std::min(max_per_pack, 3);
  const int64_t bound = packing_bounds(hist, seq_len, chosen).best_packs;
  // Price -1 per partner: at equal fill, more sequences per pack. Then lengths stranded in packs
  // that are not full get cheaper, in proportion to the share of them stranded, so that longer
  // sequences take them as partners earlier; the best pass is kept.
  std::vector<double> price(static_cast<size_t>(seq_len) + 1, -1.0);
  std::vector<int64_t> stranded(price.size(), 0);
  std::map<std::vector<int>, int64_t> best = greedy(hist, price, seq_len, chosen, &stranded);
  for (int round = 1; round < kPricingRounds && packs_of(best) > bound; ++round) {
    for (size_t len = 1; len < price.size() && len < hist.size(); ++len)
      if (hist[len] > 0) price[len] -= kPriceStep * static_cast<double>(stranded[len]) / static_cast<double>(hist[len]);
    std::fill(stranded.begin(), stranded.end(), 0);
    auto shapes = greedy(hist, price, seq_len, chosen, &stranded);
    if (packs_of(shapes) < packs_of(best)) best = std::move(shapes);
  }
  std::vector<PackStrategy> out;
  out.reserve(best.size());
  for (auto& [lengths, count] : best) out.push_back(PackStrategy{lengths, count});
  return out;
}

PackingBounds packing_bounds(const std::vector<int64_t>& hist, int seq_len, int max_per_pack) {
  PackingBounds b;
  int64_t longer_half = 0, longer_third = 0;
  for (size_t len = 1; len < hist.size(); ++len) {
    b.sequences += hist[len];
    b.tokens += hist[len] * static_cast<int64_t>(len);
    if (2 * static_cast<int64_t>(len) > seq_len) longer_half += hist[len];
    else if (3 * static_cast<int64_t>(len) > seq_len) longer_third += hist[len];
  }
  b.tokens_packs = (b.tokens + seq_len - 1) / seq_len;
  b.per_pack_packs = (b.sequences + max_per_pack - 1) / max_per_pack;
  b.long_packs = longer_half + (std::max<int64_t>(0, longer_third - longer_half) + 1) / 2;
  b.best_packs = std::max({b.tokens_packs, b.per_pack_packs, b.long_packs});
  return b;
}

}  // namespace bert::data
