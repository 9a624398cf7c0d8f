// The histogram solver (solve_packing, packing_bounds) and the global file packer (pack_files_global).
#include <functional>
#include <doctest/doctest.h>

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "formats/shard_write.h"
#include "test_util.h"
#include "dataset/dataset_tools.h"
#include "dataset/packing.h"
#include "dataset/synth.h"

using namespace bert::data;
using bert::data::test::make_sequences;
using bert::data::test::TempDir;

namespace {

std::vector<int64_t> histogram(std::initializer_list<std::pair<int, int64_t>> counts, int seq_len) {
  std::vector<int64_t> h(static_cast<size_t>(seq_len) + 1, 0);
  for (auto [len, c] : counts) h[static_cast<size_t>(len)] += c;
  return h;
}

// The strategies cover `h` exactly and respect both limits.
void check_cover(const std::vector<PackStrategy>& st, const std::vector<int64_t>& h, int seq_len, int k) {
  std::vector<int64_t> got(h.size(), 0);
  for (const auto& s : st) {
    CHECK(s.count > 0);
    CHECK(s.tokens() <= seq_len);
    CHECK(static_cast<int>(s.lengths.size()) <= k);
    CHECK(std::is_sorted(s.lengths.rbegin(), s.lengths.rend()));
    for (int len : s.lengths) got[static_cast<size_t>(len)] += s.count;
  }
  CHECK(got == h);
}

// One sequence with everything it carries, positions relative to the sequence.
using Seq = std::tuple<std::vector<int16_t>, std::vector<int8_t>, std::vector<int16_t>, std::vector<int16_t>, int8_t>;

Seq seq_of(const SequenceSet& s, int64_t i) {
  return {{s.input_ids.begin() + s.tok_off[i], s.input_ids.begin() + s.tok_off[i + 1]},
          {s.segment_ids.begin() + s.tok_off[i], s.segment_ids.begin() + s.tok_off[i + 1]},
          {s.mlm_positions.begin() + s.mlm_off[i], s.mlm_positions.begin() + s.mlm_off[i + 1]},
          {s.mlm_ids.begin() + s.mlm_off[i], s.mlm_ids.begin() + s.mlm_off[i + 1]},
          s.nsp_labels[i]};
}

std::vector<Seq> read_all(const std::vector<std::string>& files, const Limits& lim, int max_per_pack = 0) {
  std::vector<Seq> out;
  for (const auto& f : files) {
    const SequenceSet s = read_shard(f, lim);
    for (int64_t p = 0; max_per_pack > 0 && p < s.num_packs(); ++p) {
      CHECK(s.pack_off[p + 1] - s.pack_off[p] <= max_per_pack);
      CHECK(s.tok_off[s.pack_off[p + 1]] - s.tok_off[s.pack_off[p]] <= lim.seq_len);
    }
    for (int64_t i = 0; i < s.size(); ++i) out.push_back(seq_of(s, i));
  }
  return out;
}

std::vector<std::string> write_synth_shards(const TempDir& dir, int shards, int64_t per_shard, int seq_len) {
  SynthOptions opt;
  opt.seq_len = seq_len;
  write_synth_dataset(opt, SynthLayout{dir.file("in"), Format::varlength, shards, per_shard, 0});
  return input_files(dir.file("in/train"));
}

const Limits kLim{1024, 128, 19};

}  // namespace

TEST_CASE("solver: hand-made histograms with a known optimum") {
  struct Case {
    std::vector<int64_t> h;
    int64_t optimum;
  };
  const std::vector<Case> cases = {
      {histogram({{512, 5}}, 512), 5},                        // full length: alone
      {histogram({{256, 6}}, 512), 3},                        // two halves fill a pack
      {histogram({{100, 9}}, 512), 3},                        // the cap of 3, not the 512 tokens, binds
      {histogram({{300, 4}, {200, 4}, {12, 4}}, 512), 4},     // exact triples
      {histogram({{400, 2}, {100, 2}, {12, 2}, {6, 2}}, 512), 3},  // 2 x [400,100,12] + [6,6]; ceil(1036/512) = 3
      {histogram({{60, 3}, {40, 3}, {30, 3}, {20, 3}, {10, 3}}, 100), 5},  // 3 x [60,30,10], [40,40,20], [40,20,20]
  };
  for (const auto& c : cases) {
    const int seq_len = static_cast<int>(c.h.size()) - 1;
    const auto st = solve_packing(c.h, seq_len, 3);
    check_cover(st, c.h, seq_len, 3);
    CHECK(count_packs(st) == c.optimum);
    CHECK(packing_bounds(c.h, seq_len, 3).best_packs <= c.optimum);
  }
}

TEST_CASE("solver: one per pack and the bounds") {
  const auto h = histogram({{5, 3}, {40, 2}, {70, 4}}, 128);
  const auto st = solve_packing(h, 128, 1);
  check_cover(st, h, 128, 1);
  CHECK(count_packs(st) == 9);
  // tokens 15 + 80 + 280 = 375 -> 3 packs; 9 sequences / 3 -> 3; longer than 64: 4, in (42, 64]: 0 -> 4
  const PackingBounds b = packing_bounds(h, 128, 3);
  CHECK(b.sequences == 9);
  CHECK(b.tokens == 375);
  CHECK(b.tokens_packs == 3);
  CHECK(b.per_pack_packs == 3);
  CHECK(b.long_packs == 4);
  CHECK(b.best_packs == 4);
  CHECK(count_packs(solve_packing(h, 128, 3)) == 4);  // 70+40+5 twice, 70+5, 70: meets the bound
  CHECK_THROWS_AS(solve_packing(histogram({{129, 1}}, 129), 128, 3), DataError);
}

TEST_CASE("solver: synthetic MLPerf-like lengths pack at least as well as per-shard best-fit") {
  SynthOptions opt;
  opt.seq_len = 512;
  opt.vocab_size = 30522;
  const Grammar g(opt.vocab_size, opt.topics, opt.seed);
  std::vector<int64_t> h(513, 0);
  int64_t per_shard_packs = 0;
  for (int shard = 0; shard < 4; ++shard) {
    const SequenceSet s = synth_sequences(opt, g, static_cast<uint64_t>(shard), 0, 1500);
    for (int64_t i = 0; i < s.size(); ++i) ++h[static_cast<size_t>(s.length(i))];
    per_shard_packs += pack_sequences(s, 512, 3, 1).num_packs();
  }
  const auto st = solve_packing(h, 512, 3);
  check_cover(st, h, 512, 3);
  const int64_t global = count_packs(st);
  CHECK(global < per_shard_packs);
  const int64_t bound = packing_bounds(h, 512, 3).best_packs;
  CHECK(global >= bound);
  CHECK(static_cast<double>(global) <= 1.005 * static_cast<double>(bound));  // measured: 2949 vs 2944
  MESSAGE(fmt::format("6000 sequences: global {} packs, per-shard {}, bound {}", global, per_shard_packs, bound));
}

TEST_CASE("global pack: every sequence exactly once with its data, limits kept, seeded order") {
  TempDir dir;
  const auto in = write_synth_shards(dir, 3, 300, 128);
  const PackSummary a = pack_files_global(in, dir.file("a"), kLim, 3, 7, 0, nullptr);
  CHECK(a.files == 3);
  CHECK(a.sequences == 900);
  const auto out_a = input_files(dir.file("a"));
  REQUIRE(out_a.size() == 3);
  CHECK(std::filesystem::path(out_a[0]).filename() == "part_00000");
  CHECK_FALSE(std::filesystem::exists(dir.file("a/.pack-spill")));

  auto want = read_all(in, kLim);
  auto got = read_all(out_a, kLim, 3);
  const auto got_order = got;
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  CHECK(got == want);

  // deterministic for a seed, another order for another seed, --shards respected
  pack_files_global(in, dir.file("b"), kLim, 3, 7, 0, nullptr);
  CHECK(read_all(input_files(dir.file("b")), kLim) == got_order);
  const PackSummary c = pack_files_global(in, dir.file("c"), kLim, 3, 8, 2, nullptr);
  CHECK(c.files == 2);
  auto other = read_all(input_files(dir.file("c")), kLim, 3);
  CHECK(other != got_order);
  std::sort(other.begin(), other.end());
  CHECK(other == want);

  const PackSummary per = pack_files(in, dir.file("per"), kLim, 3, 7, nullptr);
  CHECK(a.packs <= per.packs);
  CHECK(a.tokens == per.tokens);
}

TEST_CASE("global pack: fixed-layout input shards") {
  TempDir dir;
  const Limits lim{1024, 32, 2};
  std::filesystem::create_directories(dir.file("fixed"));
  const SequenceSet s = make_sequences(90, 32);
  SequenceSet first, second;
  for (int64_t i = 0; i < s.size(); ++i) (i < 40 ? first : second).append(s, i);
  write_shard(dir.file("fixed/part_0"), first, Format::fixed, lim);
  write_shard(dir.file("fixed/part_1"), second, Format::fixed, lim);
  const auto in = input_files(dir.file("fixed"));
  const PackSummary sum = pack_files_global(in, dir.file("out"), lim, 3, 4, 1, nullptr);
  CHECK(sum.files == 1);
  auto want = read_all(in, lim);
  auto got = read_all(input_files(dir.file("out")), lim, 3);
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  CHECK(got == want);
}

TEST_CASE("global pack: bad inputs are one DataError naming the file, and leave no output") {
  TempDir dir;
  const auto in = write_synth_shards(dir, 2, 50, 128);
  auto error_of = [&](const std::vector<std::string>& files, const Limits& lim) -> std::string {
    try {
      pack_files_global(files, dir.file("out"), lim, 3, 1, 0, nullptr);
    } catch (const DataError& e) {
      return e.what();
    }
    return "";
  };
  {  // not HDF5
    const std::string junk = dir.file("part_junk");
    std::ofstream(junk) << "not an hdf5 file";
    const std::string e = error_of({in[0], junk}, kLim);
    CHECK(e.find(junk) != std::string::npos);
  }
  {  // a shard of longer sequences than --seq-len
    SynthOptions opt;
    opt.seq_len = 256;
    write_synth_dataset(opt, SynthLayout{dir.file("long"), Format::varlength, 1, 200, 0});
    const std::string longer = input_files(dir.file("long/train"))[0];
    const std::string e = error_of({in[0], longer}, kLim);
    CHECK(e.find(longer) != std::string::npos);
    CHECK(e.find("seq_len 128") != std::string::npos);
  }
  {  // already packed
    pack_files_global(in, dir.file("packed"), kLim, 3, 1, 0, nullptr);
    const std::string packed = input_files(dir.file("packed"))[0];
    const std::string e = error_of({packed}, kLim);
    CHECK(e.find(packed) != std::string::npos);
    CHECK(e.find("unpacked") != std::string::npos);
  }
  {  // lengths fine, a token id out of vocab: found in the second pass; nothing written stays
    SequenceSet s = make_sequences(20, 32);
    s.input_ids[3] = 2000;
    const std::string bad = dir.file("part_zz_bad");
    write_shard(bad, s, Format::varlength, Limits{0, 0, 0});
    std::filesystem::remove_all(dir.file("out"));
    const std::string e = error_of({in[0], in[1], bad}, kLim);
    CHECK(e.find(bad) != std::string::npos);
    CHECK(e.find("vocab") != std::string::npos);
    CHECK(std::filesystem::is_empty(dir.file("out")));
  }
}

TEST_CASE("pack, reshard and to-varlength refuse an output directory that already holds shards") {
  TempDir dir;
  const auto in = write_synth_shards(dir, 2, 50, 128);
  pack_files_global(in, dir.file("out"), kLim, 3, 1, 0, nullptr);
  const std::vector<std::string> before = input_files(dir.file("out"));
  auto error_of = [&](const std::function<void()>& f) -> std::string {
    try {
      f();
    } catch (const DataError& e) {
      return e.what();
    }
    return "";
  };
  for (const std::string& e :
       {error_of([&] { pack_files_global(in, dir.file("out"), kLim, 3, 2, 1, nullptr); }),
        error_of([&] { pack_files(in, dir.file("out"), kLim, 3, 2, nullptr); }),
        error_of([&] { reshard(in, dir.file("out"), 1, Format::varlength, kLim, nullptr); }),
        error_of([&] { convert_files(in, dir.file("out"), Format::varlength, kLim, nullptr); })}) {
    CHECK(e.find(dir.file("out")) != std::string::npos);
    CHECK(e.find("already holds shards") != std::string::npos);
  }
  CHECK(input_files(dir.file("out")) == before);  // nothing added or removed
}
