// The reference's create_pretraining_data.py (google-research/bert, as NVIDIA runs it per text
// part), reproduced draw for draw so that the arrays are equal:
//   documents: lines of a part, tokenized (BasicTokenizer + WordPiece); a blank line (str.strip()
//   leaves nothing) ends a document; lines without tokens add nothing; empty documents vanish.
//   rng = random.Random(seed); rng.shuffle(documents); dupe_factor times, for every document,
//   create_instances_from_document (target length, A/B split, random next sentence with up to 10
//   tries for another document, pair truncation, masking); finally rng.shuffle(instances).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "formats/sequences.h"
#include "dataset/text/vocab.h"

namespace bert::data::text {

struct GeneratorOptions {
  uint64_t seed = 12345;
  int dupe_factor = 10;
  int max_seq_length = 512;
  int max_predictions_per_seq = 76;
  double masked_lm_prob = 0.15;
  double short_seq_prob = 0.1;
  bool lower_case = true;
  void validate() const;  // DataError for values the reference cannot run with
};

// The tokenized documents of one part, flat: segment s (one line) is tokens [seg_off[s],
// seg_off[s+1]); document d is segments [doc_off[d], doc_off[d+1]) (file order).
struct Documents {
  std::vector<int16_t> tokens;
  std::vector<int64_t> seg_off{0};
  std::vector<int64_t> doc_off{0};
  int64_t num_docs() const { return static_cast<int64_t>(doc_off.size()) - 1; }
};

// `progress(bytes_done, bytes_total)` is called every few MB (may be null).
Documents read_documents(const std::string& path, const Vocab& vocab, bool lower_case,
                         const std::function<void(uint64_t, uint64_t)>& progress = nullptr);

// Instances as token ranges into Documents::tokens (A = [a0, a0+la), B = [b0, b0+lb)) plus their
// masked positions: compact (a few dozen bytes each), expanded only when written.
struct Instances {
  struct Row {
    int64_t a0 = 0, b0 = 0, m0 = 0;  // m0: first masked entry
    int32_t la = 0, lb = 0;
    int16_t num_masked = 0;
    int8_t next_sentence_label = 0;  // 1 = B is a random sentence
  };
  std::vector<Row> rows;                 // in the order they were generated
  std::vector<int16_t> mask_pos, mask_label, mask_token;  // per masked entry, sorted by position per row
  std::vector<int64_t> order;            // output row k = rows[order[k]] (the final shuffle)
};

Instances generate_instances(const Documents& docs, const Vocab& vocab, const GeneratorOptions& opt);

// Rows [first, first+count) of the output order as sequences ([CLS] A [SEP] B [SEP], masked
// tokens replaced), appended to `out`.
void expand_rows(const Documents& docs, const Instances& inst, const Vocab& vocab, int64_t first, int64_t count,
                 SequenceSet& out);

}  // namespace bert::data::text
