#include "bench/trainer_throughput/bench_batches.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace bert::bench {
namespace {

// Assumed length model (the MLPerf histogram is not at hand): 20% of sequences are
// full length, the rest uniform in [20, 360]; mean = 0.2*512 + 0.8*190 = 254.4 tokens, close to the
// 254.2 of the MLPerf training set. The benchmark prints the mean it actually drew.
int draw_length(std::mt19937_64& g, int seq_len) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  if (u(g) < 0.2) return seq_len;
  std::uniform_int_distribution<int> len(20, std::min(360, seq_len));
  return len(g);
}

void add_sequence(data::Batch& b, int row, int at, int len, int vocab, std::mt19937_64& g) {
  const int s = b.num_sequences++;
  b.seq_row.push_back(row);
  b.seq_first_token.push_back(at);
  b.seq_lengths.push_back(len);
  b.nsp_labels.push_back(static_cast<int8_t>(g() & 1));
  std::uniform_int_distribution<int> tok(1000, vocab - 1);
  for (int i = 0; i < len; ++i) {
    b.input_ids[at + i] = i == 0 ? 101 : tok(g);
    b.segment_ids[at + i] = i > len / 2 ? 1 : 0;
    b.input_mask[at + i] = 1;
    b.position_ids[at + i] = i;
  }
  const int n_mask = std::min(76, std::max(1, static_cast<int>(std::lround(0.15 * len))));
  std::vector<int> cand;
  for (int i = 1; i < len; ++i) cand.push_back(i);
  std::shuffle(cand.begin(), cand.end(), g);
  cand.resize(static_cast<size_t>(std::min<int>(n_mask, static_cast<int>(cand.size()))));
  std::sort(cand.begin(), cand.end());
  for (int p : cand) {
    b.mlm_token_index.push_back(at + p);
    b.mlm_label_ids.push_back(tok(g));
    b.mlm_sequence.push_back(s);
  }
}

data::Batch empty_batch(int rows, int seq_len) {
  data::Batch b;
  b.rows = rows;
  b.seq_len = seq_len;
  const size_t n = static_cast<size_t>(rows) * seq_len;
  b.input_ids.assign(n, 0);
  b.segment_ids.assign(n, 0);
  b.input_mask.assign(n, 0);
  b.position_ids.assign(n, 0);
  return b;
}

void finish_cu_seqlens(data::Batch& b) {
  // Ranges tile the array; a row's padding belongs to its last sequence (batch.h).
  b.cu_seqlens.assign(1, 0);
  for (int s = 0; s < b.num_sequences; ++s) {
    const bool last_in_row = s + 1 == b.num_sequences || b.seq_row[static_cast<size_t>(s) + 1] != b.seq_row[static_cast<size_t>(s)];
    b.cu_seqlens.push_back(last_in_row ? (b.seq_row[static_cast<size_t>(s)] + 1) * b.seq_len
                                       : b.seq_first_token[static_cast<size_t>(s)] + b.seq_lengths[static_cast<size_t>(s)]);
  }
}

}  // namespace

data::Batch make_padded_batch(int rows, int seq_len, int vocab, uint64_t seed) {
  std::mt19937_64 g(seed);
  data::Batch b = empty_batch(rows, seq_len);
  for (int r = 0; r < rows; ++r) add_sequence(b, r, r * seq_len, seq_len, vocab, g);
  finish_cu_seqlens(b);
  return b;
}

data::Batch make_packed_batch(int rows, int seq_len, int vocab, uint64_t seed) {
  std::mt19937_64 g(seed);
  // Pack a large pool first-fit-decreasing into as many packs as it needs (as NVIDIA packs the whole
  // dataset: ~2 sequences per pack, almost no padding), then take `rows` of them. Packs are taken by
  // their number of sequences in the pool's proportions (largest remainder), not uniformly: a few
  // uniform picks are often all single full-length sequences (4 packs at 512 held 4 sequences with
  // mean length 512 where the pool's is ~254), which made a "packed" benchmark a dense one.
  std::vector<int> lens(static_cast<size_t>(rows) * 16);
  for (auto& l : lens) l = draw_length(g, seq_len);
  std::sort(lens.rbegin(), lens.rend());
  constexpr size_t kMaxPerPack = 3;
  struct Pack { int used = 0; std::vector<int> seqs; };
  std::vector<Pack> packs;
  for (int l : lens) {
    auto it = std::find_if(packs.begin(), packs.end(),
                           [&](const Pack& p) { return p.seqs.size() < kMaxPerPack && p.used + l <= seq_len; });
    if (it == packs.end()) it = packs.insert(packs.end(), Pack{});
    it->used += l;
    it->seqs.push_back(l);
  }
  std::shuffle(packs.begin(), packs.end(), g);
  std::vector<std::vector<const Pack*>> by_count(kMaxPerPack + 1);
  for (const Pack& p : packs) by_count[p.seqs.size()].push_back(&p);
  const int take_total = std::min(rows, static_cast<int>(packs.size()));
  std::vector<int> take(kMaxPerPack + 1, 0);
  std::vector<std::pair<double, size_t>> remainders;
  int taken = 0;
  for (size_t k = 1; k <= kMaxPerPack; ++k) {
    const double share = static_cast<double>(take_total) * by_count[k].size() / packs.size();
    take[k] = static_cast<int>(share);
    taken += take[k];
    remainders.push_back({share - take[k], k});
  }
  std::sort(remainders.rbegin(), remainders.rend());
  for (size_t i = 0; taken < take_total; i = (i + 1) % remainders.size()) {
    const size_t k = remainders[i].second;
    if (take[k] < static_cast<int>(by_count[k].size())) ++take[k], ++taken;
  }
  std::vector<const Pack*> chosen;
  for (size_t k = 1; k <= kMaxPerPack; ++k)
    chosen.insert(chosen.end(), by_count[k].begin(), by_count[k].begin() + take[k]);
  std::shuffle(chosen.begin(), chosen.end(), g);
  data::Batch b = empty_batch(rows, seq_len);
  b.packed = true;
  for (int r = 0; r < static_cast<int>(chosen.size()); ++r) {
    std::vector<int> seqs = chosen[static_cast<size_t>(r)]->seqs;
    std::shuffle(seqs.begin(), seqs.end(), g);
    int at = r * seq_len;
    for (int l : seqs) {
      add_sequence(b, r, at, l, vocab, g);
      at += l;
    }
  }
  finish_cu_seqlens(b);
  return b;
}

data::Batch padded_rows_of(const data::Batch& b) {
  data::Batch p = empty_batch(b.num_sequences, b.seq_len);
  std::vector<int32_t> flat_to_padded(static_cast<size_t>(b.rows) * b.seq_len, -1);
  for (int s = 0; s < b.num_sequences; ++s) {
    const int from = b.seq_first_token[static_cast<size_t>(s)], len = b.seq_lengths[static_cast<size_t>(s)];
    const int at = s * b.seq_len;
    for (int i = 0; i < len; ++i) {
      p.input_ids[static_cast<size_t>(at + i)] = b.input_ids[static_cast<size_t>(from + i)];
      p.segment_ids[static_cast<size_t>(at + i)] = b.segment_ids[static_cast<size_t>(from + i)];
      p.input_mask[static_cast<size_t>(at + i)] = 1;
      p.position_ids[static_cast<size_t>(at + i)] = b.position_ids[static_cast<size_t>(from + i)];
      flat_to_padded[static_cast<size_t>(from + i)] = at + i;
    }
    p.num_sequences++;
    p.seq_row.push_back(s);
    p.seq_first_token.push_back(at);
    p.seq_lengths.push_back(len);
    p.nsp_labels.push_back(b.nsp_labels[static_cast<size_t>(s)]);
  }
  for (int m = 0; m < b.num_masked(); ++m) {
    p.mlm_token_index.push_back(flat_to_padded[static_cast<size_t>(b.mlm_token_index[static_cast<size_t>(m)])]);
    p.mlm_label_ids.push_back(b.mlm_label_ids[static_cast<size_t>(m)]);
    p.mlm_sequence.push_back(b.mlm_sequence[static_cast<size_t>(m)]);
  }
  finish_cu_seqlens(p);
  return p;
}

nlohmann::json batch_json(const data::Batch& b) {
  return {{"rows", b.rows},
          {"seq_len", b.seq_len},
          {"input_ids", b.input_ids},
          {"segment_ids", b.segment_ids},
          {"position_ids", b.position_ids},
          {"seq_first_token", b.seq_first_token},
          {"seq_lengths", b.seq_lengths},
          {"nsp_labels", b.nsp_labels},
          {"mlm_token_index", b.mlm_token_index},
          {"mlm_label_ids", b.mlm_label_ids}};
}

int64_t real_tokens(const data::Batch& b) {
  int64_t t = 0;
  for (int l : b.seq_lengths) t += l;
  return t;
}

int64_t sum_len_squared(const data::Batch& b) {
  int64_t t = 0;
  for (int l : b.seq_lengths) t += static_cast<int64_t>(l) * l;
  return t;
}

model::StepShape real_step_shape(const data::Batch& b, int64_t params, bool fp8) {
  return model::StepShape{.tokens = real_tokens(b),
                          .sequences = b.num_sequences,
                          .masked = b.num_masked(),
                          .sum_len_sq = static_cast<double>(sum_len_squared(b)),
                          .params = params,
                          .fp8 = fp8};
}

}  // namespace bert::bench
