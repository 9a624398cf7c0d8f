#include "trainer/cuda/device_batch.h"

#include <algorithm>
#include <string>

#include "trainer/model/forward_types.h"

namespace bert::cuda {

DeviceBatch::DeviceBatch(const CudaModelLimits& lim) {
  const size_t t = static_cast<size_t>(lim.rows) * static_cast<size_t>(lim.seq_len);
  const size_t sx = static_cast<size_t>(lim.max_sequences), mx = static_cast<size_t>(lim.max_masked);
  ids = DeviceBuffer<int32_t>(t);
  pos = DeviceBuffer<int32_t>(t);
  seg = DeviceBuffer<int8_t>(t);
  mask = DeviceBuffer<int8_t>(t);
  first = DeviceBuffer<int32_t>(sx);
  lens = DeviceBuffer<int32_t>(sx);
  nsp_label = DeviceBuffer<int32_t>(sx);
  mlm_idx = DeviceBuffer<int32_t>(mx);
  mlm_label = DeviceBuffer<int32_t>(mx);
  micro_step_dev = DeviceBuffer<uint32_t>::from({0u});
  // ids, pos (int32), seg, mask (int8) per token; first, lens, nsp (int32) per sequence; index, label per mask
  batch_staging_ = std::make_unique<HostStaging>(
      HostStaging::bytes_for({4 * t, 4 * t, t, t, 4 * sx, 4 * sx, 4 * sx, 4 * mx, 4 * mx}));
  step_staging_ = std::make_unique<HostStaging>(sizeof(uint32_t));
}

void DeviceBatch::load(const data::Batch& b, const model::BertConfig& c, const CudaModelLimits& lim,
                       cudaStream_t stream) {
  auto bad = [](const std::string& m) { throw model::BatchError("batch: " + m); };
  const int n = b.rows * b.seq_len;
  if (b.rows > lim.rows || b.seq_len != lim.seq_len)
    bad("shape " + std::to_string(b.rows) + "x" + std::to_string(b.seq_len) + " does not fit the model's buffers (" +
        std::to_string(lim.rows) + "x" + std::to_string(lim.seq_len) + ")");
  if (static_cast<int>(b.input_ids.size()) != n || static_cast<int>(b.segment_ids.size()) != n ||
      static_cast<int>(b.input_mask.size()) != n || static_cast<int>(b.position_ids.size()) != n)
    bad("token arrays do not match rows*seq_len");
  if (static_cast<int>(b.seq_first_token.size()) != b.num_sequences ||
      static_cast<int>(b.seq_lengths.size()) != b.num_sequences ||
      static_cast<int>(b.nsp_labels.size()) != b.num_sequences)
    bad("sequence arrays do not match num_sequences");
  if (b.num_sequences > lim.max_sequences) bad("more sequences than the model was sized for");
  if (b.num_masked() > lim.max_masked) bad("more masked tokens than the model was sized for");
  if (b.mlm_label_ids.size() != b.mlm_token_index.size()) bad("masked label and index arrays differ in size");
  for (int i = 0; i < n; ++i) {
    if (b.input_ids[i] < 0 || b.input_ids[i] >= c.vocab_size)
      bad("token id " + std::to_string(b.input_ids[i]) + " outside the vocabulary (" + std::to_string(c.vocab_size) + ")");
    if (b.position_ids[i] < 0 || b.position_ids[i] >= c.max_position) bad("position id out of range");
    if (b.segment_ids[i] < 0 || b.segment_ids[i] >= c.type_vocab) bad("segment id out of range");
  }
  std::vector<uint8_t> real(static_cast<size_t>(n), 0);
  int longest = 0;
  for (int q = 0; q < b.num_sequences; ++q) {
    const int f = b.seq_first_token[q], len = b.seq_lengths[q];
    if (len <= 0 || len > b.seq_len || f < 0 || f + len > n || f / b.seq_len != (f + len - 1) / b.seq_len)
      bad("sequence " + std::to_string(q) + " out of range");
    if (b.nsp_labels[q] != 0 && b.nsp_labels[q] != 1) bad("next_sentence_label must be 0 or 1");
    std::fill(real.begin() + f, real.begin() + f + len, 1);
    longest = std::max(longest, len);
  }
  for (int m = 0; m < b.num_masked(); ++m) {
    const int fl = b.mlm_token_index[m];
    if (fl < 0 || fl >= n || !real[static_cast<size_t>(fl)]) bad("masked position outside the real tokens");
    if (b.mlm_label_ids[m] < 0 || b.mlm_label_ids[m] >= c.vocab_size) bad("masked label outside the vocabulary");
  }
  T = n;
  S_real = S = b.num_sequences;
  M_real = M = b.num_masked();
  seq_len = b.seq_len;
  max_len = longest;
  h_first_.assign(b.seq_first_token.begin(), b.seq_first_token.end());
  h_lens_.assign(b.seq_lengths.begin(), b.seq_lengths.end());
  h_nsp_.assign(b.nsp_labels.begin(), b.nsp_labels.end());
  h_mlm_idx_.assign(b.mlm_token_index.begin(), b.mlm_token_index.end());
  h_mlm_label_.assign(b.mlm_label_ids.begin(), b.mlm_label_ids.end());
  if (lim.static_shapes) {  // pad to the captured shapes: ignored rows
    S = lim.max_sequences;
    M = lim.max_masked;
    max_len = lim.seq_len;
    h_first_.resize(static_cast<size_t>(S), -1);
    h_lens_.resize(static_cast<size_t>(S), 0);
    h_nsp_.resize(static_cast<size_t>(S), -1);
    h_mlm_idx_.resize(static_cast<size_t>(M), -1);
    h_mlm_label_.resize(static_cast<size_t>(M), -1);
  }
  HostStaging& hs = *batch_staging_;
  hs.begin();
  hs.copy(ids.get(), b.input_ids.data(), b.input_ids.size(), stream);
  hs.copy(pos.get(), b.position_ids.data(), b.position_ids.size(), stream);
  hs.copy(seg.get(), b.segment_ids.data(), b.segment_ids.size(), stream);
  hs.copy(mask.get(), b.input_mask.data(), b.input_mask.size(), stream);
  hs.copy(first.get(), h_first_.data(), h_first_.size(), stream);
  hs.copy(lens.get(), h_lens_.data(), h_lens_.size(), stream);
  hs.copy(nsp_label.get(), h_nsp_.data(), h_nsp_.size(), stream);
  hs.copy(mlm_idx.get(), h_mlm_idx_.data(), h_mlm_idx_.size(), stream);
  hs.copy(mlm_label.get(), h_mlm_label_.data(), h_mlm_label_.size(), stream);
  hs.end(stream);
}

void DeviceBatch::set_micro_step(uint32_t micro_step, cudaStream_t stream) {
  HostStaging& hs = *step_staging_;
  hs.begin();
  hs.copy(micro_step_dev.get(), &micro_step, 1, stream);
  hs.end(stream);
}

}  // namespace bert::cuda
