// The loader on Samsung's 4-bin layout (loader_bins.h): groups of shard k of every bin, a fixed
// count per bin in every batch (the same on every rank), each sequence at most once per epoch,
// default counts from the bins' shares, and malformed folders named.
#include <doctest/doctest.h>

#include <filesystem>
#include <fmt/format.h>
#include <set>

#include "formats/shard_write.h"
#include "test_util.h"
#include "trainer/data/loader.h"
#include "trainer/data/loader_bins.h"

using namespace bert::data;
using bert::data::test::TempDir;

namespace {

// Bin b (edges 4, 8, 12, 16 of seq_len 16) gets `shards` files of per_bin[b] sequences of lengths
// in (4b, 4b+4]; token 1 carries a global id.
void write_bins(const TempDir& tmp, int shards, const std::vector<int>& per_bin) {
  int g = 0;
  for (int b = 0; b < 4; ++b) {
    const std::string dir = tmp.file(std::to_string(4 * (b + 1)));
    std::filesystem::create_directories(dir);
    for (int k = 0; k < shards; ++k) {
      SequenceSet s;
      for (int i = 0; i < per_bin[b]; ++i, ++g) {
        const int len = std::max(3, 4 * b + 1 + i % 4);
        std::vector<int16_t> ids(len, 150);
        std::vector<int8_t> seg(len, 0);
        ids[0] = 101;
        ids[1] = static_cast<int16_t>(1000 + g);
        const int16_t pos[1] = {2}, mid[1] = {7};
        s.append(ids.data(), seg.data(), len, pos, mid, 1, 0);
      }
      write_shard(fmt::format("{}/part_{}_of_{}.hdf5", dir, k, shards), s, Format::fixed, Limits{4096, 16, 2});
    }
  }
}

LoaderOptions bin_options(const TempDir& tmp, int rank, int world, int batch) {
  LoaderOptions o = bert::data::test::loader_options(tmp, Format::fixed, rank, world, batch);
  o.seed = 5;
  o.epochs = 1;
  return o;
}

int bin_of(int len) { return (len - 1) / 4; }

}  // namespace

TEST_CASE("4-bin loader: every batch has the same per-bin counts on every rank, no sequence twice") {
  TempDir tmp;
  write_bins(tmp, 4, {30, 15, 10, 25});  // shares 6:3:2:5 of a batch of 16, as Samsung's 6 3 2 5
  for (int world : {1, 2}) {
    std::set<int> seen;
    int batches = 0;
    for (int rank = 0; rank < world; ++rank) {
      Loader loader(bin_options(tmp, rank, world, 16));
      Batch b;
      while (loader.next(b)) {
        ++batches;
        int per_bin[4] = {0, 0, 0, 0};
        for (int s = 0; s < b.num_sequences; ++s) {
          ++per_bin[bin_of(b.seq_lengths[s])];
          CHECK(seen.insert(b.input_ids[b.seq_first_token[s] + 1] - 1000).second);
        }
        CHECK(per_bin[0] == 6);
        CHECK(per_bin[1] == 3);
        CHECK(per_bin[2] == 2);
        CHECK(per_bin[3] == 5);
      }
    }
    CHECK(batches == 4 * 5);  // 5 batches per group (30/6 = 15/3 = 10/2 = 25/5), 4 groups
    CHECK(seen.size() == 4u * 80u);
  }
}

TEST_CASE("4-bin loader: given counts, the smallest bin limits a group's batches, bad layouts are named") {
  TempDir tmp;
  write_bins(tmp, 2, {12, 12, 12, 12});
  LoaderOptions o = bin_options(tmp, 0, 1, 8);
  o.bin_batch_counts = {1, 1, 1, 5};
  {
    Loader loader(o);
    Batch b;
    int batches = 0;
    while (loader.next(b)) {
      ++batches;
      int full = 0;
      for (int s = 0; s < b.num_sequences; ++s) full += bin_of(b.seq_lengths[s]) == 3;
      CHECK(full == 5);
    }
    CHECK(batches == 2 * 2);  // 12 / 5 = 2 batches per group
  }
  o.bin_batch_counts = {1, 1, 1, 1};
  CHECK_THROWS_WITH_AS(Loader{o}, doctest::Contains("summing to the batch size 8"), DataError);
  CHECK(bin_batch_counts({100, 50, 0, 10}, 8, {}, "d") == std::vector<int>{4, 3, 0, 1});  // 5 2.5 0 0.5, ties to the first
  std::filesystem::remove(tmp.file("16/part_1_of_2.hdf5"));
  o.bin_batch_counts = {};
  CHECK_THROWS_WITH_AS(Loader{o}, doctest::Contains("the bins must have as many shards each"), DataError);
}
