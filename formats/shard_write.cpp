#include "formats/shard_write.h"

#include <algorithm>
#include <fmt/format.h>

#include "formats/h5_util.h"
#include "formats/h5_write.h"
#include "formats/tmp_file.h"

namespace bert::data {
namespace {

using h5::fail;
using h5::Handle;

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

void flush_file(hid_t f, const std::string& tmp) {
  if (H5Fflush(f, H5F_SCOPE_GLOBAL) < 0) fail(tmp, "", "flush failed (disk full?)");
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

}  // namespace bert::data
