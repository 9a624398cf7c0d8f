#include "trainer/data/shard_io.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <memory>

#include "trainer/data/crash_guard.h"
#include "trainer/data/h5_util.h"

namespace bert::data {
namespace {

namespace fs = std::filesystem;
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

// The six datasets of a fixed-layout file, created for `rows` rows and filled block by block.
class FixedRows {
 public:
  FixedRows(hid_t f, const std::string& path, int64_t rows, const Limits& lim) : path_(path), lim_(lim), rows_(rows) {
    if (lim.seq_len <= 0 || lim.max_pred <= 0) fail(path, "", "fixed layout needs seq_len and max_pred");
    const hsize_t n = static_cast<hsize_t>(rows), L = static_cast<hsize_t>(lim.seq_len),
                  P = static_cast<hsize_t>(lim.max_pred);
    ids_ = h5::create_plain<int16_t>(f, path, "input_ids", n, L);
    mask_ = h5::create_plain<int8_t>(f, path, "input_mask", n, L);
    seg_ = h5::create_plain<int8_t>(f, path, "segment_ids", n, L);
    pos_ = h5::create_plain<int16_t>(f, path, "masked_lm_positions", n, P);
    mid_ = h5::create_plain<int16_t>(f, path, "masked_lm_ids", n, P);
    nsp_ = h5::create_plain<int8_t>(f, path, "next_sentence_labels", n, 0);
  }

  // Sequences [first, first+count) of `s` padded into the next rows.
  void write(const SequenceSet& s, int64_t first, int64_t count) {
    const int64_t L = lim_.seq_len, P = lim_.max_pred;
    if (next_ + count > rows_) fail(path_, "input_ids", fmt::format("more than the {} rows announced", rows_));
    ids.assign(count * L, 0);
    mask.assign(count * L, 0);
    seg.assign(count * L, 0);
    pos.assign(count * P, 0);
    mid.assign(count * P, 0);
    for (int64_t k = 0; k < count; ++k) {
      const int64_t i = first + k;
      int len = s.length(i), nm = s.num_masked(i);
      if (len > L) fail(path_, "input_ids", fmt::format("sample {}: length {} > seq_len {}", next_ + k, len, L));
      if (nm > P)
        fail(path_, "masked_lm_positions", fmt::format("sample {}: {} masked > max_pred {}", next_ + k, nm, P));
      std::copy_n(s.input_ids.data() + s.tok_off[i], len, ids.data() + k * L);
      std::copy_n(s.segment_ids.data() + s.tok_off[i], len, seg.data() + k * L);
      std::fill_n(mask.data() + k * L, len, int8_t{1});
      std::copy_n(s.mlm_positions.data() + s.mlm_off[i], nm, pos.data() + k * P);
      std::copy_n(s.mlm_ids.data() + s.mlm_off[i], nm, mid.data() + k * P);
    }
    const hsize_t at = static_cast<hsize_t>(next_), n = static_cast<hsize_t>(count);
    h5::write_rows(ids_.get(), path_, "input_ids", ids.data(), at, n, L);
    h5::write_rows(mask_.get(), path_, "input_mask", mask.data(), at, n, L);
    h5::write_rows(seg_.get(), path_, "segment_ids", seg.data(), at, n, L);
    h5::write_rows(pos_.get(), path_, "masked_lm_positions", pos.data(), at, n, P);
    h5::write_rows(mid_.get(), path_, "masked_lm_ids", mid.data(), at, n, P);
    h5::write_rows(nsp_.get(), path_, "next_sentence_labels", s.nsp_labels.data() + first, at, n, 0);
    next_ += count;
  }
  int64_t written() const { return next_; }

 private:
  std::string path_;
  Limits lim_;
  int64_t rows_, next_ = 0;
  Handle ids_, mask_, seg_, pos_, mid_, nsp_;
  std::vector<int16_t> ids, pos, mid;
  std::vector<int8_t> mask, seg;
};

constexpr int64_t kFixedBlock = 4096;  // rows padded and written at a time

void write_fixed(hid_t f, const std::string& path, const SequenceSet& s, const Limits& lim) {
  FixedRows rows(f, path, s.size(), lim);
  for (int64_t i = 0; i < s.size(); i += kFixedBlock) rows.write(s, i, std::min(kFixedBlock, s.size() - i));
}

void write_varlength(hid_t f, const std::string& path, const SequenceSet& s) {
  const hsize_t n = static_cast<hsize_t>(s.size());
  h5::write_vlen(f, path, "input_ids", s.input_ids.data(), s.tok_off.data(), n);
  h5::write_vlen(f, path, "segment_ids", s.segment_ids.data(), s.tok_off.data(), n);
  h5::write_vlen(f, path, "masked_lm_positions", s.mlm_positions.data(), s.mlm_off.data(), n);
  h5::write_vlen(f, path, "masked_lm_ids", s.mlm_ids.data(), s.mlm_off.data(), n);
  h5::write_plain(f, path, "next_sentence_labels", s.nsp_labels.data(), n, 0);
}

void write_packed(hid_t f, const std::string& path, const SequenceSet& s, const Limits& lim) {
  if (!s.packed()) fail(path, "", "packed layout needs packs (run bert-data pack)");
  const int64_t np = s.num_packs();
  std::vector<int64_t> tok_off(np + 1), mlm_off(np + 1);
  std::vector<int16_t> pos(s.mlm_positions.size()), lens(s.size()), mlens(s.size());
  for (int64_t p = 0; p <= np; ++p) {
    tok_off[p] = s.tok_off[s.pack_off[p]];
    mlm_off[p] = s.mlm_off[s.pack_off[p]];
  }
  for (int64_t p = 0; p < np; ++p) {
    int64_t start = 0;
    for (int64_t i = s.pack_off[p]; i < s.pack_off[p + 1]; ++i) {
      lens[i] = static_cast<int16_t>(s.length(i));
      mlens[i] = static_cast<int16_t>(s.num_masked(i));
      for (int64_t m = s.mlm_off[i]; m < s.mlm_off[i + 1]; ++m)
        pos[m] = static_cast<int16_t>(s.mlm_positions[m] + start);
      start += s.length(i);
    }
    if (lim.seq_len > 0 && start > lim.seq_len)
      fail(path, "input_ids", fmt::format("pack {}: {} tokens > seq_len {}", p, start, lim.seq_len));
  }
  const hsize_t n = static_cast<hsize_t>(np);
  h5::write_vlen(f, path, "input_ids", s.input_ids.data(), tok_off.data(), n);
  h5::write_vlen(f, path, "segment_ids", s.segment_ids.data(), tok_off.data(), n);
  h5::write_vlen(f, path, "packed_input_len", lens.data(), s.pack_off.data(), n);
  h5::write_vlen(f, path, "masked_lm_positions", pos.data(), mlm_off.data(), n);
  h5::write_vlen(f, path, "masked_lm_ids", s.mlm_ids.data(), mlm_off.data(), n);
  h5::write_vlen(f, path, "packed_masked_lm_len", mlens.data(), s.pack_off.data(), n);
  h5::write_vlen(f, path, "next_sentence_labels", s.nsp_labels.data(), s.pack_off.data(), n);
}

}  // namespace

const char* format_name(Format f) {
  switch (f) {
    case Format::fixed: return "fixed";
    case Format::varlength: return "varlength";
    case Format::packed: return "packed";
  }
  return "?";
}

Format parse_format(const std::string& name) {
  if (name == "fixed") return Format::fixed;
  if (name == "varlength") return Format::varlength;
  if (name == "packed") return Format::packed;
  throw DataError(fmt::format("unknown data format '{}' (expected fixed, varlength or packed)", name));
}

namespace {
Format detect_open(hid_t f, const std::string& path) {
  if (h5::has_dataset(f, "packed_input_len")) return Format::packed;
  Handle ids = h5::open_dataset(f, path, "input_ids");
  if (h5::type_info(ids).vlen) return Format::varlength;
  if (h5::has_dataset(f, "input_mask")) return Format::fixed;
  fail(path, "input_mask", "missing (fixed-length input_ids without input_mask)");
}

SequenceSet read_open(const std::string& path, const Limits& limits, int64_t first, int64_t count, Format* layout) {
  Handle f = h5::open_file(path);
  Format found = detect_open(f, path);
  if (layout) *layout = found;
  switch (found) {
    case Format::fixed: return read_fixed(f, path, limits, first, count);
    case Format::varlength: return read_varlength(f, path, limits, first, count);
    case Format::packed: return read_packed(f, path, limits, first, count);
  }
  fail(path, "", "unknown layout");
}
}  // namespace

Format detect_format(const std::string& path) {
  ReadingFile guard(path);
  Handle f = h5::open_file(path);
  return detect_open(f, path);
}

SequenceSet read_shard(const std::string& path, const Limits& limits, int64_t first, int64_t count,
                       Format* layout) {
  ReadingFile guard(path);
  try {
    return read_open(path, limits, first, count, layout);
  } catch (const std::bad_alloc&) {
    throw DataError(fmt::format("{}: corrupt file: implausible sizes (out of memory)", path));
  } catch (const std::length_error&) {
    throw DataError(fmt::format("{}: corrupt file: implausible sizes", path));
  }
}

std::vector<int16_t> read_lengths(const std::string& path, const Limits& limits) {
  ReadingFile guard(path);
  Handle f = h5::open_file(path);
  const Format found = detect_open(f, path);
  if (found == Format::packed) throw DataError(fmt::format("{}: needs unpacked (fixed or varlength) shards", path));
  std::vector<int16_t> lengths;
  if (found == Format::varlength) {
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

int64_t count_samples(const std::string& path) {
  ReadingFile guard(path);
  Handle f = h5::open_file(path);
  detect_open(f, path);
  Handle ids = h5::open_dataset(f, path, "input_ids");
  auto d = h5::dims(ids);
  if (d.empty()) fail(path, "input_ids", "scalar dataset");
  return static_cast<int64_t>(d[0]);
}

ShardInfo shard_info(const std::string& path) {
  ReadingFile guard(path);
  Handle f = h5::open_file(path);
  ShardInfo info;
  info.format = detect_open(f, path);
  Handle ids = h5::open_dataset(f, path, "input_ids");
  auto d = h5::dims(ids);
  if (d.empty()) fail(path, "input_ids", "scalar dataset");
  info.samples = static_cast<int64_t>(d[0]);
  if (info.format == Format::fixed && d.size() == 2) {
    info.width = static_cast<int>(d[1]);
    Handle pos = h5::open_dataset(f, path, "masked_lm_positions");
    auto dp = h5::dims(pos);
    if (dp.size() == 2) info.mlm_width = static_cast<int>(dp[1]);
  }
  return info;
}

namespace {
void flush_file(hid_t f, const std::string& tmp) {
  if (H5Fflush(f, H5F_SCOPE_GLOBAL) < 0) fail(tmp, "", "flush failed (disk full?)");
}
void publish(const std::string& tmp, const std::string& path) {
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) throw DataError(fmt::format("{}: cannot rename from {}: {}", path, tmp, ec.message()));
}
void remove_quietly(const std::string& file) {
  std::error_code ec;
  fs::remove(file, ec);
}
}  // namespace

void write_shard(const std::string& path, const SequenceSet& seqs, Format format, const Limits& limits) {
  const std::string tmp = path + ".tmp";
  try {
    {
      Handle f = h5::create_file(tmp);
      switch (format) {
        case Format::fixed: write_fixed(f, tmp, seqs, limits); break;
        case Format::varlength: write_varlength(f, tmp, seqs); break;
        case Format::packed: write_packed(f, tmp, seqs, limits); break;
      }
      flush_file(f, tmp);
    }
    publish(tmp, path);
  } catch (...) {
    remove_quietly(tmp);
    throw;
  }
}

struct FixedShardWriter::Impl {
  std::string path, tmp;
  Handle file;
  std::unique_ptr<FixedRows> rows;
  int64_t expected;
  bool done = false;
};

FixedShardWriter::FixedShardWriter(const std::string& path, int64_t rows, const Limits& limits)
    : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->tmp = path + ".tmp";
  impl_->expected = rows;
  try {
    impl_->file = h5::create_file(impl_->tmp);
    impl_->rows = std::make_unique<FixedRows>(impl_->file.get(), impl_->tmp, rows, limits);
  } catch (...) {
    impl_->rows.reset();
    impl_->file.reset();
    remove_quietly(impl_->tmp);
    throw;
  }
}

FixedShardWriter::~FixedShardWriter() {
  if (impl_->done) return;
  impl_->rows.reset();
  impl_->file.reset();
  remove_quietly(impl_->tmp);
}

void FixedShardWriter::write(const SequenceSet& block) {
  for (int64_t i = 0; i < block.size(); i += kFixedBlock)
    impl_->rows->write(block, i, std::min(kFixedBlock, block.size() - i));
}

void FixedShardWriter::finish() {
  if (impl_->rows->written() != impl_->expected)
    fail(impl_->tmp, "input_ids", fmt::format("{} rows written, {} announced", impl_->rows->written(), impl_->expected));
  flush_file(impl_->file.get(), impl_->tmp);
  impl_->rows.reset();
  impl_->file.reset();
  publish(impl_->tmp, impl_->path);
  impl_->done = true;
}

std::vector<std::string> list_shards(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw DataError(fmt::format("{}: not a directory", dir));
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file()) continue;
    std::string name = e.path().filename().string();
    if (name.rfind("part", 0) != 0) continue;
    std::string ext = e.path().extension().string();
    if (ext == ".chk" || ext == ".tmp" || ext == ".lst" || ext == ".json" || ext == ".md5") continue;
    out.push_back(e.path().string());
  }
  if (ec) throw DataError(fmt::format("{}: cannot list: {}", dir, ec.message()));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace bert::data
