#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "dataset/synth.h"

using namespace bert::data;

TEST_CASE("synthetic samples follow the reference generator's rules") {
  SynthOptions opt;
  opt.vocab_size = 1024;
  opt.seq_len = 128;
  opt.seed = 9;
  const Grammar g(opt.vocab_size, opt.topics, opt.seed);
  const SequenceSet s = synth_sequences(opt, g, 0, 0, 3000);
  REQUIRE(s.size() == 3000);
  int64_t total = 0, nsp1 = 0, masked_tokens = 0, mask_id = 0;
  for (int64_t i = 0; i < s.size(); ++i) {
    const int len = s.length(i);
    total += len;
    REQUIRE(len >= 5);
    REQUIRE(len <= 128);
    const int16_t* ids = s.input_ids.data() + s.tok_off[i];
    const int8_t* seg = s.segment_ids.data() + s.tok_off[i];
    CHECK(ids[0] == kClsId);
    CHECK(ids[len - 1] == kSepId);
    CHECK(seg[0] == 0);
    CHECK(seg[len - 1] == 1);
    int seps = 0, sep1 = -1;
    for (int t = 0; t < len; ++t)
      if (ids[t] == kSepId) ++seps, sep1 = sep1 < 0 ? t : sep1;
    CHECK(seps == 2);
    for (int t = 0; t < len; ++t) CHECK(seg[t] == (t <= sep1 ? 0 : 1));
    const int expect = std::min(19, std::max(1, static_cast<int>(std::lround(len * 0.15))));
    CHECK(s.num_masked(i) == expect);
    for (int m = 0; m < s.num_masked(i); ++m) {
      const int p = s.mlm_positions[s.mlm_off[i] + m];
      CHECK(p > 0);
      CHECK(p != sep1);
      CHECK(p != len - 1);
      if (m) CHECK(p > s.mlm_positions[s.mlm_off[i] + m - 1]);
      const int label = s.mlm_ids[s.mlm_off[i] + m];
      CHECK(label >= kFirstContentId);
      CHECK(label < 1024);
      mask_id += ids[p] == kMaskId;
      ++masked_tokens;
    }
    nsp1 += s.nsp_labels[i];
  }
  const double mean = static_cast<double>(total) / s.size();
  CHECK(mean > 0.45 * 128);
  CHECK(mean < 0.55 * 128);
  CHECK(std::abs(static_cast<double>(nsp1) / s.size() - 0.5) < 0.05);
  CHECK(std::abs(static_cast<double>(mask_id) / masked_tokens - 0.8) < 0.02);
}

TEST_CASE("synthetic data is deterministic from the seed, and differs across streams and seeds") {
  SynthOptions opt;
  const Grammar g(opt.vocab_size, opt.topics, opt.seed);
  const SequenceSet a = synth_sequences(opt, g, 3, 0, 50), b = synth_sequences(opt, g, 3, 0, 50);
  CHECK(a.input_ids == b.input_ids);
  CHECK(a.mlm_positions == b.mlm_positions);
  CHECK(synth_sequences(opt, g, 4, 0, 50).input_ids != a.input_ids);
  const SequenceSet tail = synth_sequences(opt, g, 3, 10, 5);  // random access into a stream
  CHECK(tail.length(0) == a.length(10));
  SynthOptions other = opt;
  other.seed = 99;
  const Grammar g2(other.vocab_size, other.topics, other.seed);
  CHECK(synth_sequences(other, g2, 3, 0, 50).input_ids != a.input_ids);
}

TEST_CASE("grammar: transitions are distributions, and masked tokens are predictable") {
  const Grammar g(1024, 8, 1);
  for (int from : {0, 1, 2, 57, g.num_states() - 1}) {
    double sum = 0;
    for (int to = 0; to < g.num_states(); ++to) sum += g.transition(from, to);
    CHECK(sum == doctest::Approx(1.0));
  }
  CHECK_THROWS_AS(Grammar(150, 8, 1), DataError);
  SynthOptions opt;
  opt.seed = 1;
  const GrammarStats st = grammar_stats(opt, 4000, 300);
  CHECK(st.masked > 2000);
  CHECK(st.unigram < 0.05);
  CHECK(st.oracle > 0.75);       // measured 0.84 at vocab 1024 / seq 128
  CHECK(st.bigram > 0.6);        // counts from 4000 samples
  CHECK(st.oracle >= st.bigram - 0.02);
}

TEST_CASE("synth options are checked") {
  SynthOptions opt;
  opt.seq_len = 4;
  const Grammar g(opt.vocab_size, opt.topics, opt.seed);
  CHECK_THROWS_AS(synth_sequences(opt, g, 0, 0, 1), DataError);
  opt.seq_len = 512;
  CHECK(opt.resolved_max_pred() == 76);
  opt.seq_len = 128;
  CHECK(opt.resolved_max_pred() == 19);
}

TEST_CASE("content_tokens limits the ids the grammar uses, random replacements included") {
  SynthOptions opt;
  opt.content_tokens = 200;
  const Grammar g(opt.vocab_size, opt.topics, opt.seed, opt.content_tokens);
  CHECK(g.num_states() == 200);
  const SequenceSet s = synth_sequences(opt, g, 0, 0, 500);
  std::set<int> used;
  for (int16_t id : s.input_ids)
    if (id >= kFirstContentId) used.insert(id);
  for (int16_t id : s.mlm_ids) used.insert(id);
  CHECK(used.size() <= 200);
  CHECK(used.size() > 150);
  for (int id : used) CHECK(g.state_of(id) >= 0);
  CHECK_THROWS_AS(Grammar(1024, 8, 1, 1000), DataError);  // more than the 920 content ids
  CHECK_THROWS_AS(Grammar(1024, 8, 1, 40), DataError);    // fewer than 8 per topic
}

namespace {
// Stationary distribution of one topic's chain, by power iteration over Grammar::transition.
std::vector<double> topic_stationary(const Grammar& g) {
  const int G = g.topic_size();
  std::vector<double> pi(static_cast<size_t>(G), 1.0 / G), next(static_cast<size_t>(G));
  for (int it = 0; it < 500; ++it) {
    std::fill(next.begin(), next.end(), 0.0);
    for (int a = 0; a < G; ++a)
      for (int b = 0; b < G; ++b) next[b] += pi[a] * g.transition(a, b);
    pi.swap(next);
  }
  return pi;
}
}  // namespace

TEST_CASE("topic_skew peaks each topic's stationary distribution on a few tokens; 0 keeps it flat") {
  const Grammar flat(1024, 8, 1, 0, 0.0), peaked(1024, 8, 1, 0, 0.8);
  for (const Grammar* g : {&flat, &peaked})
    for (int a = 0; a < g->topic_size(); ++a) {
      double row = 0;
      for (int b = 0; b < g->topic_size(); ++b) row += g->transition(a, b);
      CHECK(row == doctest::Approx(1.0));
    }
  const std::vector<double> u = topic_stationary(flat), p = topic_stationary(peaked);
  CHECK(*std::max_element(u.begin(), u.end()) < 3.0 / flat.topic_size());  // no token stands out
  CHECK(p[0] > 0.55);                        // the topic's first token carries most of the mass
  CHECK(p[0] + p[1] + p[2] > 0.75);
  CHECK(p[0] > 50.0 / peaked.topic_size());  // vs 1/G when flat

  // The sampler follows the same chain: token frequencies in generated data match the stationary mass.
  SynthOptions opt;
  opt.topic_skew = 0.8;
  const Grammar g(opt.vocab_size, opt.topics, opt.seed, opt.content_tokens, opt.topic_skew);
  const SequenceSet s = synth_sequences(opt, g, 0, 0, 400);
  std::vector<int> by_rank(static_cast<size_t>(g.topic_size()), 0);
  int content = 0;
  for (int16_t id : s.input_ids)
    if (g.state_of(id) >= 0) ++by_rank[g.state_of(id) % g.topic_size()], ++content;
  const std::vector<double> pg = topic_stationary(g);
  // Masking replaces ~15% of tokens, so the observed share is a little lower than the chain's.
  CHECK(static_cast<double>(by_rank[0]) / content == doctest::Approx(pg[0]).epsilon(0.12));
  CHECK_THROWS_AS(Grammar(1024, 8, 1, 0, 1.0), DataError);
  CHECK_THROWS_AS(Grammar(1024, 8, 1, 0, -0.1), DataError);
}
