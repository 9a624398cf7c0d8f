#include "formats/shard_read.h"

#include <fmt/format.h>

#include "formats/h5_util.h"

namespace bert::data::layouts {
namespace {

using h5::fail;
using h5::Handle;

[[noreturn]] void bad_sample(const std::string& path, const char* dataset, int64_t sample,
                             const std::string& what) {
  throw DataError(fmt::format("{}: dataset {}, sample {}: {}", path, dataset, sample, what));
}

// "token 3: id -2 is negative" (no vocabulary given: --vocab 0 checks only the sign), else the range.
std::string id_problem(const std::string& where, int id, int vocab_size) {
  if (vocab_size <= 0) return fmt::format("{}: id {} is negative", where, id);
  return fmt::format("{}: id {} outside [0, vocab size {})", where, id, vocab_size);
}

// Checks every value of sequence `i` (file sample index `sample`).
void validate_sequence(const std::string& path, const SequenceSet& s, int64_t i, int64_t sample,
                       const Limits& lim) {
  int len = s.length(i);
  if (len < 1) bad_sample(path, "input_ids", sample, "empty sequence");
  if (lim.seq_len > 0 && len > lim.seq_len)
    bad_sample(path, "input_ids", sample, fmt::format("length {} > seq_len {}", len, lim.seq_len));
  const int16_t* ids = s.input_ids.data() + s.tok_off[i];
  const int8_t* seg = s.segment_ids.data() + s.tok_off[i];
  for (int t = 0; t < len; ++t) {
    if (ids[t] < 0 || (lim.vocab_size > 0 && ids[t] >= lim.vocab_size))
      bad_sample(path, "input_ids", sample,
                 id_problem(fmt::format("token {}", t), ids[t], lim.vocab_size));
    if (seg[t] != 0 && seg[t] != 1)
      bad_sample(path, "segment_ids", sample, fmt::format("token {}: segment id {} is not 0 or 1", t, seg[t]));
  }
  int nm = s.num_masked(i);
  if (lim.max_pred > 0 && nm > lim.max_pred)
    bad_sample(path, "masked_lm_positions", sample,
               fmt::format("{} masked tokens > max_predictions_per_seq {}", nm, lim.max_pred));
  const int16_t* pos = s.mlm_positions.data() + s.mlm_off[i];
  const int16_t* mid = s.mlm_ids.data() + s.mlm_off[i];
  for (int m = 0; m < nm; ++m) {
    if (pos[m] < 1 || pos[m] >= len)
      bad_sample(path, "masked_lm_positions", sample,
                 fmt::format("entry {}: position {} outside [1, length {})", m, pos[m], len));
    if (m > 0 && pos[m] <= pos[m - 1])
      bad_sample(path, "masked_lm_positions", sample, fmt::format("entry {}: positions not ascending", m));
    if (mid[m] < 0 || (lim.vocab_size > 0 && mid[m] >= lim.vocab_size))
      bad_sample(path, "masked_lm_ids", sample,
                 id_problem(fmt::format("entry {}", m), mid[m], lim.vocab_size));
  }
  if (s.nsp_labels[i] != 0 && s.nsp_labels[i] != 1)
    bad_sample(path, "next_sentence_labels", sample, fmt::format("label {} is not 0 or 1", s.nsp_labels[i]));
}

int64_t resolve_count(const std::string& path, const char* name, int64_t n, int64_t first, int64_t count) {
  if (first < 0 || first > n) fail(path, name, fmt::format("start {} outside [0, {}]", first, n));
  if (count < 0) return n - first;
  if (first + count > n) fail(path, name, fmt::format("{} samples from {} requested, file has {}", count, first, n));
  return count;
}

int64_t first_dim(hid_t ds, const std::string& path, const char* name, size_t rank) {
  auto d = h5::dims(ds);
  if (d.size() != rank) fail(path, name, fmt::format("rank {}, expected {}", d.size(), rank));
  return static_cast<int64_t>(d[0]);
}

void expect_rows(hid_t ds, const std::string& path, const char* name, int64_t n) {
  auto d = h5::dims(ds);
  if (d.empty() || static_cast<int64_t>(d[0]) != n)
    fail(path, name, fmt::format("{} samples, input_ids has {}", d.empty() ? 0 : d[0], n));
}

template <typename T>
void read_vlen_checked(hid_t f, const std::string& path, const char* name, int64_t n, int64_t first,
                       int64_t count, std::vector<T>& values, std::vector<int64_t>& offsets) {
  Handle ds = h5::open_dataset(f, path, name);
  h5::expect_int(ds, path, name, sizeof(T), true);
  first_dim(ds, path, name, 1);
  expect_rows(ds, path, name, n);
  h5::read_vlen(ds, path, name, first, count, values, offsets);
}

void same_lengths(const std::string& path, const char* name, const char* ref_name,
                  const std::vector<int64_t>& off, const std::vector<int64_t>& ref, int64_t first) {
  for (size_t i = 0; i + 1 < off.size(); ++i)
    if (off[i + 1] - off[i] != ref[i + 1] - ref[i])
      bad_sample(path, name, first + static_cast<int64_t>(i),
                 fmt::format("{} entries, {} has {}", off[i + 1] - off[i], ref_name, ref[i + 1] - ref[i]));
}

}  // namespace

SequenceSet read_fixed(hid_t f, const std::string& path, const Limits& lim, int64_t first, int64_t count) {
  Handle ids = h5::open_dataset(f, path, "input_ids"), mask = h5::open_dataset(f, path, "input_mask"),
         seg = h5::open_dataset(f, path, "segment_ids"), pos = h5::open_dataset(f, path, "masked_lm_positions"),
         mid = h5::open_dataset(f, path, "masked_lm_ids"), nsp = h5::open_dataset(f, path, "next_sentence_labels");
  h5::expect_int(ids, path, "input_ids", 2, false);
  h5::expect_int(mask, path, "input_mask", 1, false);
  h5::expect_int(seg, path, "segment_ids", 1, false);
  h5::expect_int(pos, path, "masked_lm_positions", 2, false);
  h5::expect_int(mid, path, "masked_lm_ids", 2, false);
  h5::expect_int(nsp, path, "next_sentence_labels", 1, false);
  int64_t n = first_dim(ids, path, "input_ids", 2);
  const int64_t L = static_cast<int64_t>(h5::dims(ids)[1]);
  if (lim.seq_len > 0 && L != lim.seq_len)
    fail(path, "input_ids", fmt::format("sequence length {}, expected {}", L, lim.seq_len));
  for (auto [ds, name] : {std::pair<hid_t, const char*>{mask, "input_mask"}, {seg, "segment_ids"}}) {
    auto d = h5::dims(ds);
    if (d.size() != 2 || static_cast<int64_t>(d[0]) != n || static_cast<int64_t>(d[1]) != L)
      fail(path, name, fmt::format("shape does not match input_ids ({}, {})", n, L));
  }
  first_dim(pos, path, "masked_lm_positions", 2);
  const int64_t P = static_cast<int64_t>(h5::dims(pos)[1]);
  auto dm = h5::dims(mid);
  if (dm.size() != 2 || static_cast<int64_t>(dm[0]) != n || static_cast<int64_t>(dm[1]) != P)
    fail(path, "masked_lm_ids", "shape does not match masked_lm_positions");
  expect_rows(pos, path, "masked_lm_positions", n);
  first_dim(nsp, path, "next_sentence_labels", 1);
  expect_rows(nsp, path, "next_sentence_labels", n);
  count = resolve_count(path, "input_ids", n, first, count);

  std::vector<int16_t> vids, vpos, vmid;
  std::vector<int8_t> vmask, vseg, vnsp;
  h5::read_rows(ids, path, "input_ids", first, count, vids);
  h5::read_rows(mask, path, "input_mask", first, count, vmask);
  h5::read_rows(seg, path, "segment_ids", first, count, vseg);
  h5::read_rows(pos, path, "masked_lm_positions", first, count, vpos);
  h5::read_rows(mid, path, "masked_lm_ids", first, count, vmid);
  h5::read_rows(nsp, path, "next_sentence_labels", first, count, vnsp);

  SequenceSet s;
  s.reserve(count, count * L / 2, count * P);
  for (int64_t i = 0; i < count; ++i) {
    const int8_t* m = vmask.data() + i * L;
    int len = 0;
    while (len < L && m[len] == 1) ++len;
    for (int64_t t = len; t < L; ++t)
      if (m[t] != 0)
        bad_sample(path, "input_mask", first + i, fmt::format("token {}: mask is not ones then zeros", t));
    const int16_t* p = vpos.data() + i * P;
    int nm = 0;
    while (nm < P && p[nm] != 0) ++nm;
    for (int64_t k = nm; k < P; ++k)
      if (p[k] != 0)
        bad_sample(path, "masked_lm_positions", first + i, fmt::format("entry {}: nonzero after padding", k));
    s.append(vids.data() + i * L, vseg.data() + i * L, len, p, vmid.data() + i * P, nm, vnsp[i]);
    validate_sequence(path, s, i, first + i, lim);
  }
  return s;
}

SequenceSet read_varlength(hid_t f, const std::string& path, const Limits& lim, int64_t first, int64_t count) {
  Handle ids = h5::open_dataset(f, path, "input_ids");
  int64_t n = first_dim(ids, path, "input_ids", 1);
  count = resolve_count(path, "input_ids", n, first, count);
  SequenceSet s;
  std::vector<int64_t> off;
  read_vlen_checked(f, path, "input_ids", n, first, count, s.input_ids, s.tok_off);
  read_vlen_checked(f, path, "segment_ids", n, first, count, s.segment_ids, off);
  same_lengths(path, "segment_ids", "input_ids", off, s.tok_off, first);
  read_vlen_checked(f, path, "masked_lm_positions", n, first, count, s.mlm_positions, s.mlm_off);
  read_vlen_checked(f, path, "masked_lm_ids", n, first, count, s.mlm_ids, off);
  same_lengths(path, "masked_lm_ids", "masked_lm_positions", off, s.mlm_off, first);
  Handle nsp = h5::open_dataset(f, path, "next_sentence_labels");
  h5::expect_int(nsp, path, "next_sentence_labels", 1, false);
  first_dim(nsp, path, "next_sentence_labels", 1);
  expect_rows(nsp, path, "next_sentence_labels", n);
  h5::read_rows(nsp, path, "next_sentence_labels", first, count, s.nsp_labels);
  for (int64_t i = 0; i < count; ++i) validate_sequence(path, s, i, first + i, lim);
  return s;
}

SequenceSet read_packed(hid_t f, const std::string& path, const Limits& lim, int64_t first, int64_t count) {
  Handle ids = h5::open_dataset(f, path, "input_ids");
  int64_t n = first_dim(ids, path, "input_ids", 1);
  count = resolve_count(path, "input_ids", n, first, count);
  std::vector<int16_t> pids, ppos, pmid, plen, pmlen;
  std::vector<int8_t> pseg, pnsp;
  std::vector<int64_t> o_ids, o_seg, o_pos, o_mid, o_len, o_mlen, o_nsp;
  read_vlen_checked(f, path, "input_ids", n, first, count, pids, o_ids);
  read_vlen_checked(f, path, "segment_ids", n, first, count, pseg, o_seg);
  same_lengths(path, "segment_ids", "input_ids", o_seg, o_ids, first);
  read_vlen_checked(f, path, "packed_input_len", n, first, count, plen, o_len);
  read_vlen_checked(f, path, "masked_lm_positions", n, first, count, ppos, o_pos);
  read_vlen_checked(f, path, "masked_lm_ids", n, first, count, pmid, o_mid);
  same_lengths(path, "masked_lm_ids", "masked_lm_positions", o_mid, o_pos, first);
  read_vlen_checked(f, path, "packed_masked_lm_len", n, first, count, pmlen, o_mlen);
  same_lengths(path, "packed_masked_lm_len", "packed_input_len", o_mlen, o_len, first);
  read_vlen_checked(f, path, "next_sentence_labels", n, first, count, pnsp, o_nsp);
  same_lengths(path, "next_sentence_labels", "packed_input_len", o_nsp, o_len, first);

  SequenceSet s;
  s.reserve(o_len.back(), static_cast<int64_t>(pids.size()), static_cast<int64_t>(ppos.size()));
  s.pack_off.assign(1, 0);
  std::vector<int16_t> rel;
  for (int64_t p = 0; p < count; ++p) {
    const int64_t k0 = o_len[p], k1 = o_len[p + 1], sample = first + p;
    if (k1 == k0) bad_sample(path, "packed_input_len", sample, "pack without sequences");
    int64_t tok_sum = 0, mlm_sum = 0;
    for (int64_t k = k0; k < k1; ++k) {
      if (plen[k] < 1) bad_sample(path, "packed_input_len", sample, fmt::format("length {} < 1", plen[k]));
      if (pmlen[k] < 0) bad_sample(path, "packed_masked_lm_len", sample, fmt::format("count {} < 0", pmlen[k]));
      tok_sum += plen[k];
      mlm_sum += pmlen[k];
    }
    if (tok_sum != o_ids[p + 1] - o_ids[p])
      bad_sample(path, "packed_input_len", sample,
                 fmt::format("lengths sum to {}, input_ids has {} tokens", tok_sum, o_ids[p + 1] - o_ids[p]));
    if (lim.seq_len > 0 && tok_sum > lim.seq_len)
      bad_sample(path, "input_ids", sample, fmt::format("pack of {} tokens > seq_len {}", tok_sum, lim.seq_len));
    if (mlm_sum != o_pos[p + 1] - o_pos[p])
      bad_sample(path, "packed_masked_lm_len", sample,
                 fmt::format("counts sum to {}, masked_lm_positions has {}", mlm_sum, o_pos[p + 1] - o_pos[p]));
    int64_t tok = o_ids[p], mlm = o_pos[p], start = 0;
    for (int64_t k = k0; k < k1; ++k) {
      rel.resize(pmlen[k]);
      for (int m = 0; m < pmlen[k]; ++m) {
        int64_t at = ppos[mlm + m] - start;
        if (at < 1 || at >= plen[k])
          bad_sample(path, "masked_lm_positions", sample,
                     fmt::format("sequence {}: position {} outside its span [{}, {})", k - k0, ppos[mlm + m],
                                 start + 1, start + plen[k]));
        rel[m] = static_cast<int16_t>(at);
      }
      s.append(pids.data() + tok, pseg.data() + tok, plen[k], rel.data(), pmid.data() + mlm, pmlen[k], pnsp[k]);
      validate_sequence(path, s, s.size() - 1, sample, lim);
      tok += plen[k];
      mlm += pmlen[k];
      start += plen[k];
    }
    s.pack_off.push_back(s.size());
  }
  return s;
}

std::vector<int16_t> lengths_varlength(hid_t f, const std::string& path, const Limits& limits) {
  std::vector<int16_t> lengths;
  Handle ids = h5::open_dataset(f, path, "input_ids");
  const int64_t n = first_dim(ids, path, "input_ids", 1);
  std::vector<int16_t> values;
  std::vector<int64_t> off;
  read_vlen_checked(f, path, "input_ids", n, 0, n, values, off);
  lengths.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t len = off[i + 1] - off[i];
    if (len < 1 || (limits.seq_len > 0 && len > limits.seq_len))
      bad_sample(path, "input_ids", i, fmt::format("length {} outside [1, seq_len {}]", len, limits.seq_len));
    lengths[i] = static_cast<int16_t>(len);
  }
  return lengths;
}

std::vector<int16_t> lengths_fixed(hid_t f, const std::string& path, const Limits& limits) {
  std::vector<int16_t> lengths;
  Handle mask = h5::open_dataset(f, path, "input_mask");
  h5::expect_int(mask, path, "input_mask", 1, false);
  const int64_t n = first_dim(mask, path, "input_mask", 2);
  const int64_t L = static_cast<int64_t>(h5::dims(mask)[1]);
  if (limits.seq_len > 0 && L != limits.seq_len)
    fail(path, "input_mask", fmt::format("sequence length {}, expected {}", L, limits.seq_len));
  std::vector<int8_t> m;
  h5::read_rows(mask, path, "input_mask", 0, n, m);
  lengths.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int8_t* row = m.data() + i * L;
    int64_t len = 0;
    while (len < L && row[len] == 1) ++len;
    if (len < 1) bad_sample(path, "input_mask", i, "empty sequence");
    lengths[i] = static_cast<int16_t>(len);
  }
  return lengths;
}

}  // namespace bert::data::layouts
