// Model weights as HDF5: what `bert-data convert-checkpoint` writes and the trainer reads.
//
// Layout (pinned):
//  - one float32 (H5T_IEEE_F32LE) dataset per TF tensor, its HDF5 path = the TF variable name,
//    e.g. /bert/encoder/layer_0/attention/self/query/kernel, /cls/predictions/output_bias;
//  - dataset shape = the TF shape, row-major (C order). Dense `kernel`s are TF's [in, out]
//    (y = x·K + b); `cls/seq_relationship/output_weights` is [2, hidden] ([out, in]); embeddings
//    are [rows, hidden]. Nothing is transposed;
//  - root attributes (strings): format = "bert-weights-v1", kernel_layout = "in_out_row_major",
//    source = the checkpoint prefix it came from; int64 num_tensors.
//  - only weights: optimizer slots (path component LAMB, LAMB_1, adam_m, adam_v, Momentum,
//    beta1_power, beta2_power) and global_step are not in the file.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "formats/data_error.h"

namespace bert::data {

struct Tensor {
  std::vector<int64_t> shape;
  std::vector<float> values;  // row-major, product(shape) values
  int64_t numel() const;
};

using TensorMap = std::map<std::string, Tensor>;

inline constexpr const char* kWeightsFormat = "bert-weights-v1";

// Reads every dataset (recursively) of a weights file. Throws DataError naming file and dataset.
TensorMap load_checkpoint_h5(const std::string& path);
// Writes `tensors` in the layout above (via PATH.tmp + rename).
void save_checkpoint_h5(const std::string& path, const TensorMap& tensors, const std::string& source);

}  // namespace bert::data
