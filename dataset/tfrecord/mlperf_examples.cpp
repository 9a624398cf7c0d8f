#include "dataset/tfrecord/mlperf_examples.h"

#include <fmt/format.h>
#include <vector>

#include "formats/data_error.h"
#include "dataset/tfrecord/example.pb.h"
#include "dataset/tfrecord/tfrecord.h"

namespace bert::data {
namespace {

class RecordCheck {
 public:
  RecordCheck(const TFRecordReader& r, int64_t index) : r_(r), index_(index) {}
  [[noreturn]] void fail(const std::string& feature, const std::string& what) const {
    throw DataError(fmt::format("{}: record {} (byte offset {}): feature {}: {}", r_.path(), index_, r_.offset(),
                                feature, what));
  }
  const tfexample::Feature& get(const tfexample::Example& ex, const std::string& name,
                                tfexample::Feature::KindCase kind) const {
    const auto& map = ex.features().feature();
    const auto it = map.find(name);
    if (it == map.end()) fail(name, "missing");
    if (it->second.kind_case() != kind)
      fail(name, kind == tfexample::Feature::kInt64List ? "not an int64 list" : "not a float list");
    return it->second;
  }

 private:
  const TFRecordReader& r_;
  int64_t index_;
};

}  // namespace

SequenceSet read_mlperf_tfrecord(const std::string& path, const Limits& limits, TFRecordShape* shape) {
  TFRecordReader reader(path);
  SequenceSet out;
  TFRecordShape s{limits.seq_len, limits.max_pred};
  tfexample::Example ex;
  std::vector<int16_t> ids, pos, mids;
  std::vector<int8_t> seg;
  std::string_view rec;
  for (int64_t index = 0; reader.next(rec); ++index) {
    const RecordCheck check(reader, index);
    if (!ex.ParseFromArray(rec.data(), static_cast<int>(rec.size())))
      check.fail("(all)", "not a tf.train.Example protobuf");
    using K = tfexample::Feature;
    const auto& fid = check.get(ex, "input_ids", K::kInt64List).int64_list().value();
    const auto& fmask = check.get(ex, "input_mask", K::kInt64List).int64_list().value();
    const auto& fseg = check.get(ex, "segment_ids", K::kInt64List).int64_list().value();
    const auto& fpos = check.get(ex, "masked_lm_positions", K::kInt64List).int64_list().value();
    const auto& fmid = check.get(ex, "masked_lm_ids", K::kInt64List).int64_list().value();
    const auto& fw = check.get(ex, "masked_lm_weights", K::kFloatList).float_list().value();
    const auto& fnsp = check.get(ex, "next_sentence_labels", K::kInt64List).int64_list().value();
    if (s.seq_len == 0) s.seq_len = fid.size();
    if (s.max_pred == 0) s.max_pred = fpos.size();
    for (auto [f, name, want] : {std::tuple{&fid, "input_ids", s.seq_len}, {&fmask, "input_mask", s.seq_len},
                                 {&fseg, "segment_ids", s.seq_len}, {&fpos, "masked_lm_positions", s.max_pred},
                                 {&fmid, "masked_lm_ids", s.max_pred}})
      if (f->size() != want) check.fail(name, fmt::format("{} values, expected {}", f->size(), want));
    if (fw.size() != s.max_pred) check.fail("masked_lm_weights", fmt::format("{} values, expected {}", fw.size(), s.max_pred));
    if (fnsp.size() != 1) check.fail("next_sentence_labels", fmt::format("{} values, expected 1", fnsp.size()));
    int len = 0;
    while (len < s.seq_len && fmask[len] == 1) ++len;
    for (int t = len; t < s.seq_len; ++t)
      if (fmask[t] != 0) check.fail("input_mask", fmt::format("token {}: not ones then zeros", t));
    if (len == 0) check.fail("input_mask", "empty sequence");
    int nm = 0;
    while (nm < s.max_pred && fpos[nm] != 0) ++nm;
    ids.resize(len), seg.resize(len), pos.resize(nm), mids.resize(nm);
    for (int t = 0; t < s.max_pred; ++t) {
      if (t >= nm && (fpos[t] != 0 || fmid[t] != 0))
        check.fail("masked_lm_positions", fmt::format("entry {}: non-zero after the padding started", t));
      if ((fw[t] != 0.0f) != (t < nm) || (t < nm && fw[t] != 1.0f))
        check.fail("masked_lm_weights", fmt::format("entry {}: weight {} for position {}", t, fw[t], fpos[t]));
    }
    for (int t = 0; t < len; ++t) {
      if (fid[t] < 0 || fid[t] > 32767) check.fail("input_ids", fmt::format("token {}: id {} outside int16", t, fid[t]));
      if (fseg[t] != 0 && fseg[t] != 1) check.fail("segment_ids", fmt::format("token {}: {} is not 0 or 1", t, fseg[t]));
      ids[t] = static_cast<int16_t>(fid[t]);
      seg[t] = static_cast<int8_t>(fseg[t]);
    }
    for (int m = 0; m < nm; ++m) {
      if (fpos[m] < 1 || fpos[m] >= len)
        check.fail("masked_lm_positions", fmt::format("entry {}: position {} outside [1, length {})", m, fpos[m], len));
      if (fmid[m] < 0 || fmid[m] > 32767) check.fail("masked_lm_ids", fmt::format("entry {}: id {} outside int16", m, fmid[m]));
      pos[m] = static_cast<int16_t>(fpos[m]);
      mids[m] = static_cast<int16_t>(fmid[m]);
    }
    if (fnsp[0] != 0 && fnsp[0] != 1) check.fail("next_sentence_labels", fmt::format("{} is not 0 or 1", fnsp[0]));
    out.append(ids.data(), seg.data(), len, pos.data(), mids.data(), nm, static_cast<int8_t>(fnsp[0]));
  }
  // The HDF5 rules (vocab, ascending positions, ...) on the whole set, reported per record.
  for (int64_t i = 0; i < out.size(); ++i) {
    const int64_t a = out.mlm_off[i], b = out.mlm_off[i + 1];
    for (int64_t m = a + 1; m < b; ++m)
      if (out.mlm_positions[m] <= out.mlm_positions[m - 1])
        throw DataError(fmt::format("{}: record {}: feature masked_lm_positions: entry {}: positions not ascending", path, i,
                                    m - a));
    for (int64_t t = out.tok_off[i]; t < out.tok_off[i + 1]; ++t)
      if (limits.vocab_size > 0 && out.input_ids[t] >= limits.vocab_size)
        throw DataError(fmt::format("{}: record {}: feature input_ids: token {}: id {} outside [0, vocab size {})", path, i,
                                    t - out.tok_off[i], out.input_ids[t], limits.vocab_size));
    for (int64_t m = a; m < b; ++m)
      if (limits.vocab_size > 0 && out.mlm_ids[m] >= limits.vocab_size)
        throw DataError(fmt::format("{}: record {}: feature masked_lm_ids: entry {}: id {} outside [0, vocab size {})", path,
                                    i, m - a, out.mlm_ids[m], limits.vocab_size));
  }
  if (shape) *shape = s;
  return out;
}

}  // namespace bert::data
