#include <doctest/doctest.h>

#include <fmt/format.h>
#include <map>
#include <set>

#include "formats/shard_write.h"
#include "test_util.h"
#include "trainer/data/loader.h"
#include "dataset/packing.h"

using namespace bert::data;
using bert::data::test::make_sequences;
using bert::data::test::TempDir;

namespace {
const auto& options = bert::data::test::loader_options;
}  // namespace

namespace {

// Shards whose sequences carry their global id in token 1 (ids 104 + global index).
void write_id_shards(const TempDir& tmp, int shards, int per_shard, Format f) {
  int g = 0;
  for (int k = 0; k < shards; ++k) {
    SequenceSet s;
    for (int i = 0; i < per_shard; ++i, ++g) {
      const int len = 4 + g % 9;
      std::vector<int16_t> ids(len, 150);
      std::vector<int8_t> seg(len, 0);
      ids[0] = 101;
      ids[1] = static_cast<int16_t>(1000 + g);
      const int16_t pos[1] = {2};
      const int16_t mid[1] = {static_cast<int16_t>(2000 + g)};
      s.append(ids.data(), seg.data(), len, pos, mid, 1, static_cast<int8_t>(g % 2));
    }
    if (f == Format::packed) s = pack_sequences(s, 16, 3, k);
    const std::string name =
        f == Format::packed ? fmt::format("part_{:05d}", k) : fmt::format("part_{:05d}_of_{:05d}.hdf5", k, shards);
    write_shard(tmp.file(name), s, f, Limits{4096, 16, 2});
  }
}


// Checks the Batch invariants of batch.h; returns the global ids of its sequences.
std::vector<int> check_batch(const Batch& b) {
  const int L = b.seq_len;
  REQUIRE(b.input_ids.size() == static_cast<size_t>(b.rows * L));
  REQUIRE(b.cu_seqlens.size() == static_cast<size_t>(b.num_sequences + 1));
  CHECK(b.cu_seqlens.front() == 0);
  CHECK(b.cu_seqlens.back() == b.rows * L);
  std::vector<int> ids;
  int real = 0;
  for (int s = 0; s < b.num_sequences; ++s) {
    const int first = b.seq_first_token[s], len = b.seq_lengths[s];
    CHECK(b.cu_seqlens[s] <= first);
    CHECK(first + len <= b.cu_seqlens[s + 1]);
    CHECK(first / L == b.seq_row[s]);
    CHECK(b.input_ids[first] == 101);
    for (int t = 0; t < len; ++t) {
      CHECK(b.position_ids[first + t] == t);
      CHECK(b.input_mask[first + t] == 1);
    }
    real += len;
    ids.push_back(b.input_ids[first + 1] - 1000);
    CHECK(b.nsp_labels[s] == ids.back() % 2);
  }
  int mask_sum = 0;
  for (int8_t m : b.input_mask) mask_sum += m;
  CHECK(mask_sum == real);
  REQUIRE(b.num_masked() == b.num_sequences);  // one masked token per sequence
  for (int m = 0; m < b.num_masked(); ++m) {
    const int s = b.mlm_sequence[m];
    CHECK(b.mlm_token_index[m] == b.seq_first_token[s] + 2);
    CHECK(b.mlm_label_ids[m] == 2000 + ids[s]);
  }
  return ids;
}

}  // namespace

TEST_CASE("padded loader: ranks get disjoint shards, every sequence once per epoch, deterministic") {
  TempDir tmp;
  write_id_shards(tmp, 4, 30, Format::varlength);
  std::multiset<int> seen;
  std::vector<int> first_run;
  for (int rank = 0; rank < 2; ++rank) {
    auto o = options(tmp, Format::varlength, rank, 2, 6);
    o.epochs = 1;
    Loader loader(o);
    Batch b;
    int batches = 0;
    while (loader.next(b)) {
      CHECK(b.rows == 6);
      CHECK_FALSE(b.packed);
      for (int id : check_batch(b)) seen.insert(id), first_run.push_back(id);
      ++batches;
    }
    CHECK(batches == 10);  // 60 sequences per rank
    CHECK(loader.sequences_served() == 60);
  }
  CHECK(seen.size() == 120);
  CHECK(std::set<int>(seen.begin(), seen.end()).size() == 120);
  // same seed, same order; another seed, another order
  std::vector<int> again, other;
  for (uint64_t seed : {42u, 43u}) {
    for (int rank = 0; rank < 2; ++rank) {
      auto o = options(tmp, Format::varlength, rank, 2, 6);
      o.epochs = 1;
      o.seed = seed;
      Loader loader(o);
      Batch b;
      while (loader.next(b))
        for (int id : check_batch(b)) (seed == 42 ? again : other).push_back(id);
    }
  }
  CHECK(again == first_run);
  CHECK(other != first_run);
}

TEST_CASE("loader streams across epochs with a new order") {
  TempDir tmp;
  write_id_shards(tmp, 3, 10, Format::fixed);
  auto o = options(tmp, Format::fixed, 0, 1, 7);
  o.epochs = 2;
  Loader loader(o);
  Batch b;
  std::vector<int> ids;
  std::vector<int> epochs;
  while (loader.next(b)) {
    for (int id : check_batch(b)) ids.push_back(id);
    epochs.push_back(loader.epoch());
  }
  CHECK(ids.size() == 56);  // 60 sequences, full batches only
  CHECK(epochs.front() == 0);
  CHECK(epochs.back() == 1);
  CHECK(std::set<int>(ids.begin(), ids.begin() + 30).size() == 30);  // epoch 0: each sequence once
  const std::vector<int> e0(ids.begin(), ids.begin() + 26), e1(ids.begin() + 30, ids.begin() + 56);
  CHECK(e0 != e1);  // epoch 1 is reshuffled
}

TEST_CASE("packed loader: rows are packs, sequences counted, positions restart, cu_seqlens tile") {
  TempDir tmp;
  write_id_shards(tmp, 2, 40, Format::packed);
  auto o = options(tmp, Format::packed, 0, 1, 4);
  o.epochs = 1;
  Loader loader(o);
  Batch b;
  std::set<int> ids;
  int64_t sequences = 0;
  bool multi = false;
  while (loader.next(b)) {
    CHECK(b.packed);
    CHECK(b.rows == 4);
    for (int id : check_batch(b)) ids.insert(id);
    sequences += b.num_sequences;
    multi = multi || b.num_sequences > b.rows;
  }
  CHECK(multi);
  CHECK(loader.sequences_served() == sequences);
  CHECK(ids.size() == static_cast<size_t>(sequences));
}

TEST_CASE("loader errors: too few shards, wrong layout, bad shard") {
  TempDir tmp;
  write_id_shards(tmp, 2, 5, Format::varlength);
  CHECK_THROWS_WITH_AS(Loader(options(tmp, Format::varlength, 0, 3, 2)),
                       doctest::Contains("2 shards for 3 ranks"), DataError);
  {
    Loader l(options(tmp, Format::packed, 0, 1, 2));
    Batch b;
    CHECK_THROWS_WITH_AS(l.next(b), doctest::Contains("layout varlength, but the run expects packed"), DataError);
  }
  {
    auto o = options(tmp, Format::varlength, 0, 1, 2);
    o.vocab_size = 500;  // ids 1000+ are out of range
    Loader l(o);
    Batch b;
    CHECK_THROWS_WITH_AS(l.next(b), doctest::Contains("dataset input_ids, sample"), DataError);
  }
  TempDir empty;
  CHECK_THROWS_AS(Loader(options(empty, Format::varlength, 0, 1, 2)), DataError);
}

TEST_CASE("eval set: MLPerf's rows int(i*N/count), sliced per rank, across files, last batch short") {
  TempDir tmp;
  const SequenceSet seqs = make_sequences(23);
  write_shard(tmp.file("part_eval.hdf5"), seqs, Format::varlength, Limits{1024, 32, 4});
  int64_t total = 0, masked = 0, want_masked = 0;
  for (int i = 0; i < 21; ++i) {
    const int64_t row = static_cast<int64_t>(static_cast<double>(i * 23) / 21.0);  // pick_eval_samples.py
    want_masked += seqs.mlm_off[row + 1] - seqs.mlm_off[row];
  }
  for (int rank = 0; rank < 2; ++rank) {
    const EvalSet ev = load_eval(tmp.file("part_eval.hdf5"), 1024, 32, 4, 21, rank, 2, 4);
    const int64_t begin = rank * 21 / 2;
    CHECK(ev.num_sequences == (rank + 1) * 21 / 2 - begin);
    CHECK(ev.total_available == 23);
    total += ev.num_sequences;
    masked += ev.num_masked;
    REQUIRE(!ev.batches.empty());
    CHECK(ev.batches.back().rows == static_cast<int>((ev.num_sequences - 1) % 4 + 1));
    const Batch& b = ev.batches.front();
    for (int j = 0; j < b.rows; ++j) {
      const int64_t row = static_cast<int64_t>(static_cast<double>((begin + j) * 23) / 21.0);
      CHECK(b.seq_lengths[static_cast<size_t>(j)] == seqs.length(row));
      CHECK(b.nsp_labels[static_cast<size_t>(j)] == seqs.nsp_labels[row]);
    }
  }
  CHECK(total == 21);
  CHECK(masked == want_masked);
  // a directory works too; exactly `count` rows are all taken; asking for more than exist is an error
  CHECK(load_eval(tmp.path().string(), 1024, 32, 4, 23, 0, 1, 8).num_masked == seqs.mlm_off[23]);
  CHECK_THROWS_WITH_AS(load_eval(tmp.path().string(), 1024, 32, 4, 24, 0, 1, 8),
                       doctest::Contains("fewer than num_eval_examples 24"), DataError);
  // rows spread over two files: the second file's rows are found at their offset
  TempDir two;
  write_shard(two.file("part_0.hdf5"), seqs, Format::varlength, Limits{1024, 32, 4});
  write_shard(two.file("part_1.hdf5"), seqs, Format::varlength, Limits{1024, 32, 4});
  const EvalSet ev = load_eval(two.path().string(), 1024, 32, 4, 4, 0, 1, 4);  // rows 0, 11, 23, 34
  REQUIRE(ev.batches.size() == 1);
  CHECK(ev.batches[0].seq_lengths[0] == seqs.length(0));
  CHECK(ev.batches[0].seq_lengths[1] == seqs.length(11));
  CHECK(ev.batches[0].seq_lengths[2] == seqs.length(0));
  CHECK(ev.batches[0].seq_lengths[3] == seqs.length(11));
}
