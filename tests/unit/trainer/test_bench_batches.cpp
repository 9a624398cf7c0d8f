// The benchmarks' packed batches (bench_batches.h) keep the MLPerf-like length mix even when small: a
// "packed" comparison on batches of single full-length sequences would measure dense rows instead.
#include <doctest/doctest.h>

#include "bench/trainer_throughput/bench_batches.h"

namespace bert {

TEST_CASE("small packed benchmark batches keep the pool's mix of sequence lengths") {
  // The pool's mean length is ~254 (20 % full length, the rest uniform in [20, 360]), ~2 per pack.
  int64_t tokens = 0, sequences = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    const data::Batch b = bench::make_packed_batch(4, 512, 30522, seed);
    const double mean = static_cast<double>(bench::real_tokens(b)) / b.num_sequences;
    CHECK(b.num_sequences >= 6);  // 4 packs
    CHECK(mean > 120.0);
    CHECK(mean < 360.0);
    tokens += bench::real_tokens(b);
    sequences += b.num_sequences;
  }
  const double mean = static_cast<double>(tokens) / static_cast<double>(sequences);
  CHECK(mean > 230.0);
  CHECK(mean < 280.0);
}

}  // namespace bert
