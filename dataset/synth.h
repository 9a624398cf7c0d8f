// `bert-data synth`: a synthetic dataset shaped like MLPerf's (dataset/README.md, "Synthetic data"), with
// token content from Grammar (grammar.h) so that masked tokens are learnable.
//
// Per sample (deterministic from seed, stream and sample index): target length seq_len-3, or with
// probability short_seq_prob uniform in [2, seq_len-3]; capped by a document length drawn from an
// exponential with mean 0.627*(seq_len-3), which puts the mean real length at ~half of seq_len
// and ~20% of samples at full length, like the real data (mean 254 of 512). [CLS] A [SEP] B [SEP]
// with the A/B split uniform; B continues A's walk (label 0) or, with p 0.5, is a walk in another
// topic (label 1). Masking as the reference generator: every token but [CLS]/[SEP] is a candidate,
// min(max_pred, max(1, round(0.15*len))) of them, 80% [MASK] / 10% kept / 10% random content
// token, positions sorted ascending (never 0).
#pragma once
#include <cstdint>
#include <string>

#include "dataset/grammar.h"
#include "formats/sequences.h"
#include "formats/shard_io.h"

namespace bert::data {

struct SynthOptions {
  int vocab_size = 1024;
  int seq_len = 128;
  int max_pred = 0;  // 0 = MLPerf's 76 scaled with seq_len: max(1, 76*seq_len/512)
  int topics = 8;
  int content_tokens = 0;  // content ids the grammar uses (0 = all of [104, vocab))
  double topic_skew = 0.0;  // Grammar's skew: peaked per-topic token frequencies (0 = off)
  double masked_lm_prob = 0.15;
  double short_seq_prob = 0.1;
  uint64_t seed = 12345;

  int resolved_max_pred() const;
};

// Samples [first, first+count) of stream `stream` (a shard number; the eval set uses its own).
SequenceSet synth_sequences(const SynthOptions& opt, const Grammar& grammar, uint64_t stream, int64_t first,
                            int64_t count);
inline constexpr uint64_t kEvalStream = 0xE7A1;

struct SynthLayout {
  std::string out_dir;
  Format format = Format::varlength;
  int shards = 1;
  int64_t samples_per_shard = 1000;  // sequences (packed: sequences before packing)
  int64_t eval_samples = 1000;
};

// Writes OUT/train/part_XXXXX_of_NNNNN.hdf5 (packed: OUT/train/part_XXXXX), the eval file
// OUT/eval/part_eval.hdf5 (fixed layout for fixed, else varlength: NVIDIA evaluates unpacked) and
// OUT/synth.json with the parameters. `progress` is called after every shard.
void write_synth_dataset(const SynthOptions& opt, const SynthLayout& layout,
                         void (*progress)(int done, int total) = nullptr);

// How well the grammar's masked tokens can be predicted (on eval-stream samples):
//  oracle  - argmax of the exact posterior under the true grammar, per segment, by forward-backward
//            over the corrupted inputs (the Bayes-optimal rate for a model that sees one segment);
//  bigram  - a count predictor using both neighbours, trained on `train_samples` samples: what
//            plain local statistics learned from that much data give;
//  unigram - the most frequent token (the floor).
struct GrammarStats {
  double oracle = 0, bigram = 0, unigram = 0;
  int64_t masked = 0;
  double mean_length = 0, short_fraction = 0, full_fraction = 0;
};
GrammarStats grammar_stats(const SynthOptions& opt, int64_t train_samples, int64_t eval_samples);

}  // namespace bert::data
