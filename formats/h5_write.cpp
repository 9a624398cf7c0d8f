#include "formats/h5_write.h"

#include <vector>

namespace bert::data::h5 {

template <typename T>
Handle create_plain(hid_t file, const std::string& path, const std::string& name, hsize_t rows, hsize_t cols) {
  hsize_t d[2] = {rows, cols};
  int rank = cols == 0 ? 1 : 2;
  Handle space(H5Screate_simple(rank, d, nullptr), H5Sclose);
  Handle ds(H5Dcreate2(file, name.c_str(), file_type<T>(), space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  if (!ds.valid()) fail(path, name, "cannot create dataset");
  return ds;
}

template <typename T>
void write_rows(hid_t dataset, const std::string& path, const std::string& name, const T* data, hsize_t first,
                hsize_t count, hsize_t cols) {
  if (count == 0) return;
  const int rank = cols == 0 ? 1 : 2;
  hsize_t start[2] = {first, 0}, size[2] = {count, cols};
  Handle fspace(H5Dget_space(dataset), H5Sclose);
  Handle mspace(H5Screate_simple(rank, size, nullptr), H5Sclose);
  if (H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, size, nullptr) < 0 ||
      H5Dwrite(dataset, native_type<T>(), mspace, fspace, H5P_DEFAULT, data) < 0)
    fail(path, name, "write failed (disk full?)");
}

template <typename T>
void write_plain(hid_t file, const std::string& path, const std::string& name, const T* data,
                 hsize_t rows, hsize_t cols) {
  Handle ds = create_plain<T>(file, path, name, rows, cols);
  write_rows(ds.get(), path, name, data, 0, rows, cols);
}

template <typename T>
void write_vlen(hid_t file, const std::string& path, const std::string& name, const T* values,
                const int64_t* offsets, hsize_t count) {
  Handle space(H5Screate_simple(1, &count, nullptr), H5Sclose);
  Handle ftype(H5Tvlen_create(file_type<T>()), H5Tclose);
  Handle mtype(H5Tvlen_create(native_type<T>()), H5Tclose);
  Handle ds(H5Dcreate2(file, name.c_str(), ftype, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  if (!ds.valid()) fail(path, name, "cannot create dataset");
  std::vector<hvl_t> buf(count);
  for (hsize_t i = 0; i < count; ++i) {
    buf[i].len = static_cast<size_t>(offsets[i + 1] - offsets[i]);
    buf[i].p = const_cast<T*>(values + offsets[i]);  // HDF5 only reads it
  }
  if (count > 0 && H5Dwrite(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) < 0)
    fail(path, name, "write failed (disk full?)");
}

#define BERT_H5_INSTANTIATE_WRITE(T)                                                               \
  template void write_plain<T>(hid_t, const std::string&, const std::string&, const T*, hsize_t,    \
                               hsize_t);                                                           \
  template Handle create_plain<T>(hid_t, const std::string&, const std::string&, hsize_t, hsize_t); \
  template void write_rows<T>(hid_t, const std::string&, const std::string&, const T*, hsize_t,     \
                              hsize_t, hsize_t);
#define BERT_H5_INSTANTIATE_WRITE_VLEN(T)                                                          \
  template void write_vlen<T>(hid_t, const std::string&, const std::string&, const T*,              \
                              const int64_t*, hsize_t);
BERT_H5_INSTANTIATE_WRITE(int8_t)
BERT_H5_INSTANTIATE_WRITE(int16_t)
BERT_H5_INSTANTIATE_WRITE(int32_t)
BERT_H5_INSTANTIATE_WRITE(float)
BERT_H5_INSTANTIATE_WRITE_VLEN(int8_t)
BERT_H5_INSTANTIATE_WRITE_VLEN(int16_t)

}  // namespace bert::data::h5
