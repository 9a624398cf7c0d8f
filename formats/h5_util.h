// Thin RAII and error plumbing over the HDF5 C API, shared by the shard and weights readers (the
// shard writers' dataset helpers: h5_write.h). HDF5's automatic error-stack printing is switched off
// (per thread: the library is built thread-safe, where that setting is thread-local); failures
// become DataError.
#pragma once
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "formats/data_error.h"

namespace bert::data::h5 {

void quiet();  // turn off HDF5's error printing for the calling thread

class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept : id_(o.id_), closer_(o.closer_) { o.id_ = -1; }
  Handle& operator=(Handle&& o) noexcept;
  ~Handle() { reset(); }
  void reset();
  hid_t get() const { return id_; }
  operator hid_t() const { return id_; }  // NOLINT: handles go straight into H5 calls
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_ = -1;
  Closer closer_ = nullptr;
};

Handle open_file(const std::string& path);                 // read-only; throws DataError
Handle create_file(const std::string& path);               // truncates; throws DataError
bool has_dataset(hid_t file, const std::string& name);
Handle open_dataset(hid_t file, const std::string& path, const std::string& name);

// Dataset description: element class and size, signedness, dims; vlen: of the base type.
struct TypeInfo {
  bool vlen = false;
  H5T_class_t cls = H5T_NO_CLASS;
  size_t size = 0;
  bool is_signed = false;
};
TypeInfo type_info(hid_t dataset);
std::vector<hsize_t> dims(hid_t dataset);
std::string describe(const TypeInfo& t);  // "int16", "vlen int8", "float64", ...

// Throws unless the dataset holds (vlen if `vlen`) signed integers of `size` bytes.
void expect_int(hid_t dataset, const std::string& path, const std::string& name, size_t size, bool vlen);

// Reads rows [first, first+count) of a 1-D or 2-D integer dataset into `out` converted to T.
template <typename T>
void read_rows(hid_t dataset, const std::string& path, const std::string& name, hsize_t first,
               hsize_t count, std::vector<T>& out);

// Reads elements [first, first+count) of a 1-D vlen integer dataset as CSR: values and offsets
// (offsets.size() == count + 1).
template <typename T>
void read_vlen(hid_t dataset, const std::string& path, const std::string& name, hsize_t first,
               hsize_t count, std::vector<T>& values, std::vector<int64_t>& offsets);

// The HDF5 types of T in memory and in a file (little-endian).
template <typename T>
hid_t native_type() {
  if constexpr (std::is_same_v<T, int8_t>) return H5T_NATIVE_SCHAR;
  if constexpr (std::is_same_v<T, int16_t>) return H5T_NATIVE_SHORT;
  if constexpr (std::is_same_v<T, int32_t>) return H5T_NATIVE_INT;
  if constexpr (std::is_same_v<T, int64_t>) return H5T_NATIVE_LLONG;
  if constexpr (std::is_same_v<T, float>) return H5T_NATIVE_FLOAT;
}
template <typename T>
hid_t file_type() {
  if constexpr (std::is_same_v<T, int8_t>) return H5T_STD_I8LE;
  if constexpr (std::is_same_v<T, int16_t>) return H5T_STD_I16LE;
  if constexpr (std::is_same_v<T, int32_t>) return H5T_STD_I32LE;
  if constexpr (std::is_same_v<T, int64_t>) return H5T_STD_I64LE;
  if constexpr (std::is_same_v<T, float>) return H5T_IEEE_F32LE;
}

void write_string_attr(hid_t obj, const std::string& name, const std::string& value);
void write_int_attr(hid_t obj, const std::string& name, int64_t value);
std::string read_string_attr(hid_t obj, const std::string& name);  // "" if absent

[[noreturn]] void fail(const std::string& path, const std::string& name, const std::string& what);

}  // namespace bert::data::h5
