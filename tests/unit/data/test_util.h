// Helpers for the trainer/data unit tests: a scratch directory and small hand-made sequences.
#pragma once
#include <filesystem>
#include <string>

#include "tests/unit/temp_dir.h"
#include "trainer/data/loader.h"
#include "formats/sequences.h"

namespace bert::data::test {

using ::TempDir;

// `n` sequences of lengths 5 + (i*7) % (max_len-4), tokens 104 + i + t, two masked positions each.
inline SequenceSet make_sequences(int n, int max_len = 32) {
  SequenceSet s;
  for (int i = 0; i < n; ++i) {
    const int len = 5 + (i * 7) % (max_len - 4);
    std::vector<int16_t> ids(len);
    std::vector<int8_t> seg(len);
    for (int t = 0; t < len; ++t) {
      ids[t] = static_cast<int16_t>(104 + (i + t) % 200);
      seg[t] = t >= len / 2 ? 1 : 0;
    }
    ids[0] = 101;
    const int16_t pos[2] = {1, static_cast<int16_t>(len - 2)};
    const int16_t mids[2] = {static_cast<int16_t>(104 + i % 50), static_cast<int16_t>(105 + i % 50)};
    s.append(ids.data(), seg.data(), len, pos, mids, len - 2 > 1 ? 2 : 1, static_cast<int8_t>(i % 2));
  }
  return s;
}

// Loader options over the shards of `tmp`: seq 16, 2 predictions, vocab 4096, seed 42, prefetch 2.
inline LoaderOptions loader_options(const TempDir& tmp, Format f, int rank, int world, int batch) {
  LoaderOptions o;
  o.dir = tmp.path().string();
  o.format = f;
  o.rank = rank;
  o.world_size = world;
  o.batch_size = batch;
  o.seq_len = 16;
  o.max_pred = 2;
  o.vocab_size = 4096;
  o.seed = 42;
  o.prefetch = 2;
  return o;
}

}  // namespace bert::data::test
