#include "formats/checkpoint_h5.h"

#include <fmt/format.h>

#include "formats/crash_guard.h"
#include "formats/h5_util.h"
#include "formats/tmp_file.h"

namespace bert::data {

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

namespace {

herr_t collect(hid_t, const char* name, const H5O_info_t* info, void* out) {
  if (info->type == H5O_TYPE_DATASET) static_cast<std::vector<std::string>*>(out)->emplace_back(name);
  return 0;
}

}  // namespace

TensorMap load_checkpoint_h5(const std::string& path) {
  ReadingFile guard(path);
  h5::Handle f = h5::open_file(path);
  std::vector<std::string> names;
  if (H5Ovisit(f, H5_INDEX_NAME, H5_ITER_INC, collect, &names) < 0)
    h5::fail(path, "", "cannot list datasets (corrupt file?)");
  if (names.empty()) h5::fail(path, "", "no tensors in the file");
  TensorMap out;
  for (const std::string& name : names) {
    h5::Handle ds = h5::open_dataset(f, path, name);
    const h5::TypeInfo t = h5::type_info(ds);
    if (t.vlen || t.cls != H5T_FLOAT) h5::fail(path, name, fmt::format("dtype {}, expected float32", h5::describe(t)));
    Tensor tensor;
    for (hsize_t d : h5::dims(ds)) tensor.shape.push_back(static_cast<int64_t>(d));
    tensor.values.resize(static_cast<size_t>(tensor.numel()));
    if (!tensor.values.empty() &&
        H5Dread(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, tensor.values.data()) < 0)
      h5::fail(path, name, "read failed (truncated or corrupt file)");
    out.emplace(name, std::move(tensor));
  }
  return out;
}

void save_checkpoint_h5(const std::string& path, const TensorMap& tensors, const std::string& source) {
  const std::string tmp = path + ".tmp";
  try {
    {
      h5::Handle f = h5::create_file(tmp);
      h5::Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
      H5Pset_create_intermediate_group(lcpl, 1);
      for (const auto& [name, t] : tensors) {
        if (static_cast<int64_t>(t.values.size()) != t.numel())
          h5::fail(tmp, name, fmt::format("{} values for shape of {} elements", t.values.size(), t.numel()));
        std::vector<hsize_t> d(t.shape.begin(), t.shape.end());
        h5::Handle space(d.empty() ? H5Screate(H5S_SCALAR)
                                   : H5Screate_simple(static_cast<int>(d.size()), d.data(), nullptr),
                         H5Sclose);
        h5::Handle ds(H5Dcreate2(f, name.c_str(), H5T_IEEE_F32LE, space, lcpl, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
        if (!ds.valid()) h5::fail(tmp, name, "cannot create dataset");
        if (!t.values.empty() && H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, t.values.data()) < 0)
          h5::fail(tmp, name, "write failed (disk full?)");
      }
      h5::write_string_attr(f, "format", kWeightsFormat);
      h5::write_string_attr(f, "kernel_layout", "in_out_row_major");
      h5::write_string_attr(f, "source", source);
      h5::write_int_attr(f, "num_tensors", static_cast<int64_t>(tensors.size()));
    }
    publish(tmp, path);
  } catch (...) {
    remove_quietly(tmp);
    throw;
  }
}

}  // namespace bert::data
