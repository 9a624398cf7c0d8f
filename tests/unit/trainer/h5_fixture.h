// Reads the PyTorch reference fixtures of tests/reference/ (HDF5) for the trainer's unit tests.
#pragma once
#include <hdf5.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "trainer/data/batch.h"
#include "trainer/model/params.h"

namespace bert::test {

inline std::string reference_path(const std::string& name) { return std::string(BERT_REFERENCE_DIR) + "/" + name; }

class H5File {
 public:
  explicit H5File(const std::string& path) : id_(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)) {
    if (id_ < 0) throw std::runtime_error("cannot open fixture " + path);
  }
  ~H5File() { H5Fclose(id_); }
  H5File(const H5File&) = delete;
  H5File& operator=(const H5File&) = delete;

  bool has(const std::string& path) const { return H5Lexists(id_, path.c_str(), H5P_DEFAULT) > 0; }

  template <class T>
  std::vector<T> read(const std::string& path) const {
    const hid_t d = H5Dopen2(id_, path.c_str(), H5P_DEFAULT);
    if (d < 0) throw std::runtime_error("fixture has no dataset " + path);
    const hid_t s = H5Dget_space(d);
    const hssize_t n = H5Sget_simple_extent_npoints(s);
    std::vector<T> out(static_cast<size_t>(n));
    H5Dread(d, native<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data());
    H5Sclose(s);
    H5Dclose(d);
    return out;
  }
  template <class T>
  T scalar(const std::string& path) const { return read<T>(path).at(0); }

  template <class T>
  T attr(const std::string& obj, const std::string& name) const {
    T v{};
    const hid_t a = H5Aopen_by_name(id_, obj.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0) throw std::runtime_error("fixture has no attribute " + name);
    H5Aread(a, native<T>(), &v);
    H5Aclose(a);
    return v;
  }

 private:
  template <class T>
  static hid_t native() {
    if constexpr (std::is_same_v<T, float>) return H5T_NATIVE_FLOAT;
    else if constexpr (std::is_same_v<T, double>) return H5T_NATIVE_DOUBLE;
    else if constexpr (std::is_same_v<T, int32_t>) return H5T_NATIVE_INT32;
    else if constexpr (std::is_same_v<T, int64_t>) return H5T_NATIVE_INT64;
    else return H5T_NATIVE_INT8;
  }
  hid_t id_;
};

inline model::BertConfig fixture_config(const H5File& f) {
  model::BertConfig c;
  c.vocab_size = f.attr<int32_t>("/", "vocab_size");
  c.hidden = f.attr<int32_t>("/", "hidden");
  c.layers = f.attr<int32_t>("/", "layers");
  c.heads = f.attr<int32_t>("/", "heads");
  c.intermediate = f.attr<int32_t>("/", "intermediate");
  c.max_position = f.attr<int32_t>("/", "max_position");
  c.type_vocab = f.attr<int32_t>("/", "type_vocab");
  return c;
}

inline data::Batch fixture_batch(const H5File& f) {
  data::Batch b;
  b.rows = f.attr<int32_t>("/batch", "rows");
  b.seq_len = f.attr<int32_t>("/batch", "seq_len");
  // the batch's tensors, each the dataset of its name under /batch
  for (auto [name, v] : {std::pair{"input_ids", &b.input_ids}, {"position_ids", &b.position_ids},
                         {"cu_seqlens", &b.cu_seqlens}, {"seq_row", &b.seq_row}, {"seq_first_token", &b.seq_first_token},
                         {"seq_lengths", &b.seq_lengths}, {"mlm_token_index", &b.mlm_token_index},
                         {"mlm_label_ids", &b.mlm_label_ids}, {"mlm_sequence", &b.mlm_sequence}})
    *v = f.read<int32_t>(std::string("/batch/") + name);
  for (auto [name, v] : {std::pair{"segment_ids", &b.segment_ids}, {"input_mask", &b.input_mask},
                         {"nsp_labels", &b.nsp_labels}})
    *v = f.read<int8_t>(std::string("/batch/") + name);
  b.num_sequences = static_cast<int>(b.seq_lengths.size());
  b.packed = b.num_sequences != b.rows;
  return b;
}

// Every tensor of `group` (e.g. "/weights") into a flat buffer of `layout`.
inline std::vector<float> fixture_flat(const H5File& f, const model::ParamLayout& layout, const std::string& group) {
  std::vector<float> flat(layout.total, 0.0f);
  for (const auto& t : layout.tensors) {
    const auto v = f.read<float>(group + "/" + t.name);
    if (v.size() != t.size) throw std::runtime_error("fixture tensor size mismatch: " + t.name);
    std::copy(v.begin(), v.end(), flat.begin() + static_cast<std::ptrdiff_t>(t.offset));
  }
  return flat;
}

}  // namespace bert::test
