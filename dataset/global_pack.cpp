// pack_files_global (dataset_tools.h): histogram pass, solver, slot plan, spill pass, write pass.
// packing.h explains the design and its memory bound.
#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <limits>

#include "formats/data_error.h"
#include "formats/shard_write.h"
#include "dataset/dataset_tools.h"
#include "dataset/packing.h"
#include "trainer/data/rng.h"
#include "dataset/spill.h"

namespace bert::data {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kPackOrderKey = 0x676c6f62;  // "glob"
constexpr uint64_t kSlotOrderKey = 0x736c6f74;  // "slot"

// Where each sequence goes: for length L, slots[off[L] .. off[L+1]) are pack*k + slot, consumed
// in order by the sequences of length L in input order.
struct SlotPlan {
  std::vector<uint32_t> slots;
  std::vector<int64_t> off;
  std::vector<int64_t> first_pack;  // output shard m holds packs [first_pack[m], first_pack[m+1])
  int k = 3;

  int shard_of(int64_t pack) const {
    return static_cast<int>(std::upper_bound(first_pack.begin(), first_pack.end(), pack) - first_pack.begin()) - 1;
  }
};

SlotPlan plan_slots(const std::vector<int64_t>& hist, const std::vector<PackStrategy>& strategies, int k,
                    uint64_t seed, int out_shards) {
  const int64_t packs = count_packs(strategies);
  int64_t sequences = 0;
  for (int64_t c : hist) sequences += c;
  if (static_cast<uint64_t>(packs) * static_cast<uint64_t>(k) > std::numeric_limits<uint32_t>::max())
    throw DataError(fmt::format("pack: {} packs x {} slots exceed the 32-bit slot index", packs, k));
  if (strategies.size() > std::numeric_limits<uint32_t>::max()) throw DataError("pack: too many pack shapes");
  std::vector<uint32_t> pack_strategy(static_cast<size_t>(packs));
  size_t at = 0;
  for (size_t s = 0; s < strategies.size(); ++s)
    for (int64_t c = 0; c < strategies[s].count; ++c) pack_strategy[at++] = static_cast<uint32_t>(s);
  Rng(std::initializer_list<uint64_t>{seed, kPackOrderKey}).shuffle(pack_strategy.begin(), pack_strategy.end());

  SlotPlan plan;
  plan.k = k;
  plan.off.assign(hist.size() + 1, 0);
  for (size_t len = 0; len < hist.size(); ++len) plan.off[len + 1] = plan.off[len] + hist[len];
  plan.slots.resize(static_cast<size_t>(sequences));
  std::vector<int64_t> cursor(plan.off.begin(), plan.off.end() - 1);
  for (int64_t p = 0; p < packs; ++p) {
    const auto& lengths = strategies[pack_strategy[p]].lengths;
    for (size_t j = 0; j < lengths.size(); ++j)
      plan.slots[cursor[lengths[j]]++] = static_cast<uint32_t>(p * k + static_cast<int64_t>(j));
  }
  pack_strategy = {};
  for (size_t len = 1; len < hist.size(); ++len)
    Rng(std::initializer_list<uint64_t>{seed, kSlotOrderKey, len})
        .shuffle(plan.slots.begin() + plan.off[len], plan.slots.begin() + plan.off[len + 1]);
  for (int m = 0; m <= out_shards; ++m) plan.first_pack.push_back(m * packs / out_shards);
  return plan;
}

}  // namespace

PackSummary pack_files_global(const std::vector<std::string>& in, const std::string& out_dir, const Limits& limits,
                              int max_per_pack, uint64_t seed, int out_shards, const Progress& progress) {
  if (limits.seq_len <= 0) throw DataError("pack: --seq-len must be positive");
  if (max_per_pack < 1) throw DataError("pack: max sequences per pack must be >= 1");
  if (out_shards < 0) throw DataError(fmt::format("pack: --shards {} < 0", out_shards));
  const int M = out_shards > 0 ? out_shards : static_cast<int>(in.size());
  const int64_t steps = 2 * static_cast<int64_t>(in.size()) + M;
  int64_t done = 0;
  auto tick = [&] {
    if (progress) progress(++done, steps);
  };

  // Pass 1: lengths only.
  std::vector<int64_t> hist(static_cast<size_t>(limits.seq_len) + 1, 0);
  std::vector<int64_t> per_file(in.size(), 0);
  for (size_t f = 0; f < in.size(); ++f) {
    const std::vector<int16_t> lengths = read_lengths(in[f], limits);
    for (int16_t len : lengths) ++hist[static_cast<size_t>(len)];
    per_file[f] = static_cast<int64_t>(lengths.size());
    tick();
  }
  PackSummary sum;
  sum.seq_len = limits.seq_len;
  sum.bounds = packing_bounds(hist, limits.seq_len, max_per_pack);
  const std::vector<PackStrategy> strategies = solve_packing(hist, limits.seq_len, max_per_pack);
  sum.strategies = static_cast<int64_t>(strategies.size());
  const int64_t packs = count_packs(strategies);
  if (packs < M) throw DataError(fmt::format("pack: {} packs cannot fill {} output shards", packs, M));
  const SlotPlan plan = plan_slots(hist, strategies, max_per_pack, seed, M);

  make_shard_dir(out_dir, "pack");
  std::error_code ec;
  const std::string spill_dir = (fs::path(out_dir) / ".pack-spill").string();
  SpillCleanup cleanup(spill_dir);
  fs::remove_all(spill_dir, ec);
  fs::create_directories(spill_dir, ec);
  if (ec) throw DataError(fmt::format("{}: cannot create directory: {}", spill_dir, ec.message()));

  // Pass 2: every sequence to the spill file of its output shard.
  SpillFiles spill(spill_dir, M);
  std::vector<int64_t> cursor(plan.off.begin(), plan.off.end() - 1);
  for (size_t f = 0; f < in.size(); ++f) {
    Format layout;
    const SequenceSet s = read_shard(in[f], limits, 0, -1, &layout);
    if (layout == Format::packed || s.size() != per_file[f])
      throw DataError(fmt::format("{}: changed while packing ({} sequences, {} before)", in[f], s.size(), per_file[f]));
    for (int64_t i = 0; i < s.size(); ++i) {
      const int len = s.length(i);
      if (cursor[len] >= plan.off[len + 1])
        throw DataError(fmt::format("{}: changed while packing (more sequences of length {})", in[f], len));
      const uint32_t v = plan.slots[static_cast<size_t>(cursor[len]++)];
      const int64_t pack = v / static_cast<uint32_t>(plan.k);
      const int m = plan.shard_of(pack);
      spill.add(m,
                RecordHead{static_cast<uint32_t>(pack - plan.first_pack[m]), static_cast<uint16_t>(v % plan.k),
                           static_cast<uint16_t>(len), static_cast<uint16_t>(s.num_masked(i)), s.nsp_labels[i]},
                s, i);
    }
    tick();
  }
  spill.flush();

  // Pass 3: one output shard at a time.
  for (int m = 0; m < M; ++m) {
    const SequenceSet packed = assemble_shard(spill.path(m), plan.first_pack[m + 1] - plan.first_pack[m]);
    fs::remove(spill.path(m), ec);
    const std::string out = (fs::path(out_dir) / fmt::format("part_{:05d}", m)).string();
    write_shard(out, packed, Format::packed, limits);
    cleanup.wrote(out);
    sum.sequences += packed.size();
    sum.packs += packed.num_packs();
    sum.tokens += packed.total_tokens();
    tick();
  }
  sum.files = M;
  cleanup.release();
  return sum;
}

}  // namespace bert::data
