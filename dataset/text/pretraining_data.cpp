#include "dataset/text/pretraining_data.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <numeric>

#include "formats/data_error.h"
#include "dataset/text/basic_tokenizer.h"
#include "dataset/text/py_random.h"
#include "dataset/text/text_lines.h"

namespace bert::data::text {

void GeneratorOptions::validate() const {
  if (max_seq_length < 5 || max_seq_length > 32767)
    throw DataError(fmt::format("max_seq_length {} outside [5, 32767]", max_seq_length));
  if (max_predictions_per_seq < 1 || max_predictions_per_seq > max_seq_length)
    throw DataError(fmt::format("max_predictions_per_seq {} outside [1, max_seq_length]", max_predictions_per_seq));
  if (dupe_factor < 0) throw DataError("dupe_factor must be >= 0");
  if (!(masked_lm_prob >= 0 && masked_lm_prob <= 1)) throw DataError("masked_lm_prob must be in [0, 1]");
  if (!(short_seq_prob >= 0 && short_seq_prob <= 1)) throw DataError("short_seq_prob must be in [0, 1]");
}

Documents read_documents(const std::string& path, const Vocab& vocab, bool lower_case,
                         const std::function<void(uint64_t, uint64_t)>& progress) {
  TextLines lines(path);
  BasicTokenizer basic(lower_case);
  const WordPiece wordpiece(vocab);
  Documents d;
  d.tokens.reserve(lines.size() / 4);
  std::u32string line;
  uint64_t next_report = 8 << 20;
  auto end_document = [&] {
    if (static_cast<int64_t>(d.seg_off.size()) - 1 > d.doc_off.back()) d.doc_off.push_back(static_cast<int64_t>(d.seg_off.size()) - 1);
  };
  while (lines.next(line)) {
    if (is_blank(line)) {
      end_document();
      continue;
    }
    const size_t before = d.tokens.size();
    basic.tokenize(line, [&](const char32_t* p, size_t n) { wordpiece.tokenize(p, n, d.tokens); });
    if (d.tokens.size() > before) d.seg_off.push_back(static_cast<int64_t>(d.tokens.size()));
    if (progress && lines.bytes_done() >= next_report) {
      progress(lines.bytes_done(), lines.size());
      next_report += 8 << 20;
    }
  }
  end_document();
  if (progress) progress(lines.size(), lines.size());
  return d;
}

namespace {

class Generator {
 public:
  Generator(const Documents& docs, const Vocab& vocab, const GeneratorOptions& opt, Instances& out)
      : docs_(docs), opt_(opt), out_(out), rng_(opt.seed), words_(vocab.word_ids()),
        mask_id_(static_cast<int16_t>(vocab.require("[MASK]"))) {
    vocab.require("[CLS]");
    vocab.require("[SEP]");
  }

  void run() {
    const int64_t n = docs_.num_docs();
    perm_.resize(static_cast<size_t>(n));
    std::iota(perm_.begin(), perm_.end(), 0);
    rng_.shuffle(perm_.data(), perm_.size());
    for (int dupe = 0; dupe < opt_.dupe_factor; ++dupe)
      for (int64_t d = 0; d < n; ++d) from_document(d);
    out_.order.resize(out_.rows.size());
    std::iota(out_.order.begin(), out_.order.end(), 0);
    rng_.shuffle(out_.order.data(), out_.order.size());
  }

 private:
  // Segment range of the document at shuffled position `d`.
  int64_t seg_first(int64_t d) const { return docs_.doc_off[perm_[static_cast<size_t>(d)]]; }
  int64_t seg_count(int64_t d) const {
    const int64_t doc = perm_[static_cast<size_t>(d)];
    return docs_.doc_off[doc + 1] - docs_.doc_off[doc];
  }
  int64_t tok(int64_t segment) const { return docs_.seg_off[segment]; }

  void from_document(int64_t d) {
    const int64_t first = seg_first(d), nseg = seg_count(d), num_docs = docs_.num_docs();
    const int max_num_tokens = opt_.max_seq_length - 3;
    int64_t target = max_num_tokens;
    if (rng_.random() < opt_.short_seq_prob) target = rng_.randint(2, max_num_tokens);
    int64_t chunk_start = 0, chunk_len = 0, cur_len = 0;
    for (int64_t i = 0; i < nseg; ++i) {
      if (chunk_len == 0) chunk_start = i;
      ++chunk_len;
      cur_len += tok(first + i + 1) - tok(first + i);
      if (i != nseg - 1 && cur_len < target) continue;
      int64_t a_end = 1;
      if (chunk_len >= 2) a_end = rng_.randint(1, chunk_len - 1);
      Instances::Row row;
      row.a0 = tok(first + chunk_start);
      int64_t la = tok(first + chunk_start + a_end) - row.a0, lb = 0;
      if (chunk_len == 1 || rng_.random() < 0.5) {
        row.next_sentence_label = 1;
        const int64_t target_b = target - la;
        int64_t other = 0;
        for (int t = 0; t < 10; ++t) {
          other = rng_.randint(0, num_docs - 1);
          if (other != d) break;
        }
        const int64_t ofirst = seg_first(other), ocount = seg_count(other);
        const int64_t start = rng_.randint(0, ocount - 1);
        row.b0 = tok(ofirst + start);
        for (int64_t j = start; j < ocount; ++j) {
          lb = tok(ofirst + j + 1) - row.b0;
          if (lb >= target_b) break;
        }
        i -= chunk_len - a_end;  // the unused segments start the next chunk
      } else {
        row.b0 = tok(first + chunk_start + a_end);
        lb = tok(first + chunk_start + chunk_len) - row.b0;
      }
      truncate_pair(row.a0, la, row.b0, lb, max_num_tokens);
      row.la = static_cast<int32_t>(la);
      row.lb = static_cast<int32_t>(lb);
      mask(row);
      out_.rows.push_back(row);
      chunk_len = 0;
      cur_len = 0;
    }
  }

  void truncate_pair(int64_t& a0, int64_t& la, int64_t& b0, int64_t& lb, int64_t max_num_tokens) {
    while (la + lb > max_num_tokens) {
      const bool trunc_a = la > lb;
      int64_t& start = trunc_a ? a0 : b0;
      int64_t& len = trunc_a ? la : lb;
      if (rng_.random() < 0.5) ++start;
      --len;
    }
    if (la < 1 || lb < 1) throw DataError("internal: empty segment after truncation");
  }

  void mask(Instances::Row& row) {
    const int la = row.la, lb = row.lb, n = la + lb + 3;
    cand_.resize(static_cast<size_t>(la + lb));
    int k = 0;
    for (int p = 1; p <= la; ++p) cand_[k++] = p;
    for (int p = la + 2; p <= la + lb + 1; ++p) cand_[k++] = p;
    rng_.shuffle(cand_.data(), cand_.size());
    const double want = std::nearbyint(static_cast<double>(n) * opt_.masked_lm_prob);  // round half to even
    const int num_to_predict =
        std::min(opt_.max_predictions_per_seq, std::max(1, static_cast<int>(want)));
    picked_.clear();
    for (int c = 0; c < static_cast<int>(cand_.size()) && c < num_to_predict; ++c) {
      const int pos = cand_[c];
      const int16_t original = docs_.tokens[pos <= la ? row.a0 + pos - 1 : row.b0 + (pos - la - 2)];
      int16_t token;
      if (rng_.random() < 0.8) {
        token = mask_id_;
      } else if (rng_.random() < 0.5) {
        token = original;
      } else {
        token = static_cast<int16_t>(words_[rng_.randint(0, static_cast<int64_t>(words_.size()) - 1)]);
      }
      picked_.push_back({pos, original, token});
    }
    std::sort(picked_.begin(), picked_.end(), [](const Pick& a, const Pick& b) { return a.pos < b.pos; });
    row.m0 = static_cast<int64_t>(out_.mask_pos.size());
    row.num_masked = static_cast<int16_t>(picked_.size());
    for (const Pick& p : picked_) {
      out_.mask_pos.push_back(static_cast<int16_t>(p.pos));
      out_.mask_label.push_back(p.label);
      out_.mask_token.push_back(p.token);
    }
  }

  struct Pick {
    int pos;
    int16_t label, token;
  };
  const Documents& docs_;
  const GeneratorOptions& opt_;
  Instances& out_;
  PyRandom rng_;
  const std::vector<int32_t>& words_;
  const int16_t mask_id_;
  std::vector<int64_t> perm_;
  std::vector<int> cand_;
  std::vector<Pick> picked_;
};

}  // namespace

Instances generate_instances(const Documents& docs, const Vocab& vocab, const GeneratorOptions& opt) {
  opt.validate();
  Instances out;
  Generator(docs, vocab, opt, out).run();
  return out;
}

void expand_rows(const Documents& docs, const Instances& inst, const Vocab& vocab, int64_t first, int64_t count,
                 SequenceSet& out) {
  const int16_t cls = static_cast<int16_t>(vocab.require("[CLS]")), sep = static_cast<int16_t>(vocab.require("[SEP]"));
  std::vector<int16_t> ids;
  std::vector<int8_t> seg;
  for (int64_t k = first; k < first + count; ++k) {
    const Instances::Row& r = inst.rows[static_cast<size_t>(inst.order[static_cast<size_t>(k)])];
    ids.clear();
    ids.push_back(cls);
    ids.insert(ids.end(), docs.tokens.begin() + r.a0, docs.tokens.begin() + r.a0 + r.la);
    ids.push_back(sep);
    ids.insert(ids.end(), docs.tokens.begin() + r.b0, docs.tokens.begin() + r.b0 + r.lb);
    ids.push_back(sep);
    seg.assign(ids.size(), 0);
    std::fill(seg.begin() + r.la + 2, seg.end(), int8_t{1});
    for (int m = 0; m < r.num_masked; ++m) ids[static_cast<size_t>(inst.mask_pos[r.m0 + m])] = inst.mask_token[r.m0 + m];
    out.append(ids.data(), seg.data(), static_cast<int>(ids.size()), inst.mask_pos.data() + r.m0,
               inst.mask_label.data() + r.m0, r.num_masked, r.next_sentence_label);
  }
}

}  // namespace bert::data::text
