// The loaded batch on the device: its token and sequence arrays, validated on the host and copied from
// pinned, double-buffered staging (host_staging.h) behind the work already queued on the model's
// stream (which may still read the previous batch), so the host never waits for the device here.
// With static shapes the sequence and masked-token arrays are padded to the model's limits (first -1,
// length 0, label -1: ignored), so a captured graph runs every batch.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "trainer/cuda/device_buffer.h"
#include "trainer/cuda/host_staging.h"
#include "trainer/cuda/model_limits.h"
#include "trainer/data/batch.h"
#include "trainer/model/config.h"

namespace bert::cuda {

struct DeviceBatch {
  explicit DeviceBatch(const CudaModelLimits& lim);

  // model::BatchError naming the field when the batch does not fit the limits or the model's vocabulary.
  void load(const data::Batch& b, const model::BertConfig& c, const CudaModelLimits& lim, cudaStream_t stream);
  // The dropout micro-step a static-shape pass reads from micro_step_dev, queued on the stream.
  void set_micro_step(uint32_t micro_step, cudaStream_t stream);

  // T tokens (rows x seq_len); S sequences and M masked tokens as the kernels see them (padded with
  // static shapes), S_real / M_real the batch's own; max_len bounds every sequence's length.
  int T = 0, S = 0, M = 0, seq_len = 0, max_len = 0, S_real = 0, M_real = 0;
  DeviceBuffer<int32_t> ids, pos, first, lens, mlm_idx, mlm_label, nsp_label;
  DeviceBuffer<int8_t> seg, mask;
  DeviceBuffer<uint32_t> micro_step_dev;

 private:
  std::vector<int32_t> h_nsp_, h_first_, h_lens_, h_mlm_idx_, h_mlm_label_;  // padded (static shapes)
  std::unique_ptr<HostStaging> batch_staging_, step_staging_;
};

}  // namespace bert::cuda
