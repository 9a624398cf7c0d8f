#include <doctest/doctest.h>

#include <set>

#include "test_util.h"
#include "dataset/packing.h"
#include "dataset/synth.h"

using namespace bert::data;

TEST_CASE("packing keeps every sequence once, <= 3 per pack, <= seq_len tokens") {
  SynthOptions opt;
  opt.seq_len = 128;
  const Grammar g(opt.vocab_size, opt.topics, opt.seed);
  const SequenceSet in = synth_sequences(opt, g, 0, 0, 2000);
  const SequenceSet p = pack_sequences(in, 128, 3, 5);
  CHECK(p.size() == in.size());
  CHECK(p.total_tokens() == in.total_tokens());
  CHECK(p.mlm_ids.size() == in.mlm_ids.size());
  for (int64_t k = 0; k < p.num_packs(); ++k) {
    const int64_t n = p.pack_off[k + 1] - p.pack_off[k];
    CHECK(n >= 1);
    CHECK(n <= 3);
    CHECK(p.tok_off[p.pack_off[k + 1]] - p.tok_off[p.pack_off[k]] <= 128);
  }
  // the same multiset of sequences (compared by their token strings)
  std::multiset<std::vector<int16_t>> a, b;
  for (int64_t i = 0; i < in.size(); ++i)
    a.emplace(in.input_ids.begin() + in.tok_off[i], in.input_ids.begin() + in.tok_off[i + 1]);
  for (int64_t i = 0; i < p.size(); ++i)
    b.emplace(p.input_ids.begin() + p.tok_off[i], p.input_ids.begin() + p.tok_off[i + 1]);
  CHECK(a == b);
  const double eff = packing_efficiency(p, 128);
  CHECK(eff > 0.9);
  CHECK(eff <= 1.0);
  CHECK(static_cast<double>(p.size()) / p.num_packs() > 1.8);
}

TEST_CASE("packing: one per pack degenerates to the input, oversize sequences are an error") {
  const SequenceSet in = bert::data::test::make_sequences(10, 32);
  const SequenceSet p = pack_sequences(in, 32, 1, 0);
  CHECK(p.num_packs() == 10);
  CHECK_THROWS_AS(pack_sequences(in, 16, 3, 0), DataError);
}
