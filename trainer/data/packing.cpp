#include "trainer/data/packing.h"

#include <algorithm>
#include <fmt/format.h>
#include <numeric>
#include <vector>

#include "trainer/data/data_error.h"
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

}  // namespace bert::data
