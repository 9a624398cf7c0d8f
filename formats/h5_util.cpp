#include "formats/h5_util.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <unistd.h>
#include <fmt/format.h>

namespace bert::data::h5 {
namespace {

// Size of the file holding `obj`, 0 if unknown.
hsize_t file_size_of(hid_t obj) {
  Handle f(H5Iget_file_id(obj), H5Fclose);
  hsize_t size = 0;
  if (!f.valid() || H5Fget_filesize(f, &size) < 0) return 0;
  return size;
}

// Corrupt metadata can claim sizes far beyond the file; HDF5 would then allocate (or walk) that
// much. Data stored contiguously, and vlen payloads in the global heap, must fit in the file.
void check_fits(hid_t dataset, const std::string& path, const std::string& name, hsize_t bytes, const char* what) {
  const hsize_t fsize = file_size_of(dataset);
  if (fsize > 0 && bytes > fsize)
    fail(path, name, fmt::format("{} of {} bytes exceed the file size {}: corrupt file", what, bytes, fsize));
}

// Before HDF5 follows them, the on-disk vlen records of a contiguous dataset and the global heap
// collections they point into are checked: corrupt lengths or heap objects make libhdf5 1.10
// allocate gigabytes, loop or crash. Record: uint32 length, uint64 collection address, uint32
// object index. Collection: "GCOL", version 1, 3 reserved, uint64 size, then objects of
// (uint16 index, uint16 refcount, 4 reserved, uint64 size, data padded to 8), index 0 = free space.
class VlenPrecheck {
 public:
  VlenPrecheck(const std::string& path, const std::string& name, hsize_t fsize)
      : path_(path), name_(name), fsize_(fsize), fd_(::open(path.c_str(), O_RDONLY)) {}
  ~VlenPrecheck() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool ok() const { return fd_ >= 0; }

  void record(hsize_t sample, const unsigned char* rec, size_t elem_size) {
    uint32_t len, index;
    uint64_t heap;
    std::memcpy(&len, rec, 4);
    std::memcpy(&heap, rec + 4, 8);
    std::memcpy(&index, rec + 12, 4);
    if (len == 0) return;
    total_ += len;
    if (static_cast<hsize_t>(len) * elem_size > fsize_ || heap >= fsize_ || total_ * elem_size > fsize_)
      bad(sample, fmt::format("vlen record (length {}, heap at {}) outside the file of {} bytes", len, heap, fsize_));
    const auto& objects = collection(sample, heap);
    auto it = objects.find(index);
    if (it == objects.end()) bad(sample, fmt::format("vlen record points to missing heap object {} at {}", index, heap));
    if (it->second < static_cast<uint64_t>(len) * elem_size)
      bad(sample, fmt::format("vlen length {} exceeds its heap object of {} bytes", len, it->second));
  }

  bool read(void* out, size_t n, uint64_t at) const {
    return ::pread(fd_, out, n, static_cast<off_t>(at)) == static_cast<ssize_t>(n);
  }

 private:
  [[noreturn]] void bad(hsize_t sample, const std::string& what) const {
    throw DataError(fmt::format("{}: dataset {}, sample {}: {}: corrupt file", path_, name_, sample, what));
  }
  const std::map<uint32_t, uint64_t>& collection(hsize_t sample, uint64_t at) {
    auto found = heaps_.find(at);
    if (found != heaps_.end()) return found->second;
    unsigned char head[16];
    uint64_t size = 0;
    if (!read(head, 16, at) || std::memcmp(head, "GCOL", 4) != 0 || head[4] != 1)
      bad(sample, fmt::format("no global heap collection at {}", at));
    std::memcpy(&size, head + 8, 8);
    if (size < 16 || size > fsize_ - at) bad(sample, fmt::format("heap collection at {} of {} bytes", at, size));
    std::vector<unsigned char> c(size);
    if (!read(c.data(), size, at)) bad(sample, fmt::format("heap collection at {} unreadable", at));
    std::map<uint32_t, uint64_t> objects;
    for (uint64_t p = 16; p + 16 <= size;) {
      uint16_t index;
      uint64_t osize;
      std::memcpy(&index, c.data() + p, 2);
      std::memcpy(&osize, c.data() + p + 8, 8);
      if (index == 0) break;  // free space: the rest of the collection
      if (osize > size - p - 16) bad(sample, fmt::format("heap object {} at {} runs past its collection", index, at));
      if (!objects.emplace(index, osize).second) bad(sample, fmt::format("heap object {} twice at {}", index, at));
      p += 16 + ((osize + 7) & ~uint64_t{7});
    }
    return heaps_.emplace(at, std::move(objects)).first->second;
  }

  std::string path_, name_;
  hsize_t fsize_;
  hsize_t total_ = 0;  // elements so far: all of them must fit in the file
  int fd_;
  std::map<uint64_t, std::map<uint32_t, uint64_t>> heaps_;
};

void precheck_vlen(hid_t dataset, const std::string& path, const std::string& name, hsize_t first, hsize_t count,
                   size_t elem_size) {
  constexpr hsize_t kRecord = 16;
  const haddr_t at = H5Dget_offset(dataset);
  const hsize_t fsize = file_size_of(dataset);
  if (at == HADDR_UNDEF || fsize == 0 || H5Dget_storage_size(dataset) != dims(dataset)[0] * kRecord) return;
  VlenPrecheck check(path, name, fsize);
  if (!check.ok()) return;
  std::vector<unsigned char> raw(count * kRecord);
  if (!check.read(raw.data(), raw.size(), at + first * kRecord))
    fail(path, name, "vlen records beyond the end of the file: truncated");
  for (hsize_t i = 0; i < count; ++i) check.record(first + i, raw.data() + i * kRecord, elem_size);
}

Handle space_of(hid_t dataset, const std::string& path, const std::string& name) {
  Handle s(H5Dget_space(dataset), H5Sclose);
  if (!s.valid()) fail(path, name, "cannot read the dataspace (corrupt file?)");
  return s;
}

}  // namespace

void quiet() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

Handle& Handle::operator=(Handle&& o) noexcept {
  if (this != &o) {
    reset();
    id_ = o.id_;
    closer_ = o.closer_;
    o.id_ = -1;
  }
  return *this;
}

void Handle::reset() {
  if (id_ >= 0 && closer_) closer_(id_);
  id_ = -1;
}

void fail(const std::string& path, const std::string& name, const std::string& what) {
  if (name.empty()) throw DataError(fmt::format("{}: {}", path, what));
  throw DataError(fmt::format("{}: dataset {}: {}", path, name, what));
}

Handle open_file(const std::string& path) {
  quiet();
  htri_t is = H5Fis_hdf5(path.c_str());
  if (is < 0) fail(path, "", "cannot open (missing or unreadable file)");
  if (is == 0) fail(path, "", "not an HDF5 file (bad signature or truncated)");
  Handle f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!f.valid()) fail(path, "", "cannot open as HDF5 (truncated or corrupt file)");
  return f;
}

Handle create_file(const std::string& path) {
  quiet();
  Handle f(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  if (!f.valid()) fail(path, "", "cannot create the file (directory missing or not writable?)");
  return f;
}

bool has_dataset(hid_t file, const std::string& name) {
  if (H5Lexists(file, name.c_str(), H5P_DEFAULT) <= 0) return false;
  H5O_info_t info;
  if (H5Oget_info_by_name(file, name.c_str(), &info, H5P_DEFAULT) < 0) return false;
  return info.type == H5O_TYPE_DATASET;
}

Handle open_dataset(hid_t file, const std::string& path, const std::string& name) {
  if (!has_dataset(file, name)) fail(path, name, "missing");
  Handle d(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!d.valid()) fail(path, name, "cannot open (corrupt file?)");
  return d;
}

TypeInfo type_info(hid_t dataset) {
  TypeInfo t;
  Handle type(H5Dget_type(dataset), H5Tclose);
  if (!type.valid()) return t;
  Handle base;
  hid_t elem = type;
  if (H5Tget_class(type) == H5T_VLEN) {
    t.vlen = true;
    base = Handle(H5Tget_super(type), H5Tclose);
    elem = base;
  }
  t.cls = H5Tget_class(elem);
  t.size = H5Tget_size(elem);
  t.is_signed = t.cls == H5T_INTEGER && H5Tget_sign(elem) == H5T_SGN_2;
  return t;
}

std::vector<hsize_t> dims(hid_t dataset) {
  Handle s(H5Dget_space(dataset), H5Sclose);
  if (!s.valid()) return {};
  int rank = H5Sget_simple_extent_ndims(s);
  if (rank < 0) return {};
  std::vector<hsize_t> d(static_cast<size_t>(rank));
  if (rank > 0) H5Sget_simple_extent_dims(s, d.data(), nullptr);
  return d;
}

std::string describe(const TypeInfo& t) {
  std::string base;
  switch (t.cls) {
    case H5T_INTEGER: base = fmt::format("{}int{}", t.is_signed ? "" : "u", 8 * t.size); break;
    case H5T_FLOAT: base = fmt::format("float{}", 8 * t.size); break;
    case H5T_STRING: base = "string"; break;
    case H5T_COMPOUND: base = "compound"; break;
    default: base = "unsupported type"; break;
  }
  return t.vlen ? "vlen " + base : base;
}

void expect_int(hid_t dataset, const std::string& path, const std::string& name, size_t size, bool vlen) {
  TypeInfo t = type_info(dataset);
  TypeInfo want{vlen, H5T_INTEGER, size, true};
  if (t.vlen != vlen || t.cls != H5T_INTEGER || t.size != size || !t.is_signed)
    fail(path, name, fmt::format("dtype {}, expected {}", describe(t), describe(want)));
}

template <typename T>
void read_rows(hid_t dataset, const std::string& path, const std::string& name, hsize_t first,
               hsize_t count, std::vector<T>& out) {
  Handle space = space_of(dataset, path, name);
  std::vector<hsize_t> d = dims(dataset);
  if (d.empty() || d.size() > 2) fail(path, name, fmt::format("expected 1-D or 2-D, has rank {}", d.size()));
  if (first + count > d[0]) fail(path, name, fmt::format("rows [{}, {}) out of range ({} rows)", first, first + count, d[0]));
  hsize_t cols = d.size() == 2 ? d[1] : 1;
  {
    Handle dcpl(H5Dget_create_plist(dataset), H5Pclose);
    Handle ftype(H5Dget_type(dataset), H5Tclose);
    if (dcpl.valid() && H5Pget_layout(dcpl) == H5D_CONTIGUOUS)
      check_fits(dataset, path, name, d[0] * cols * H5Tget_size(ftype), "contiguous data");
  }
  out.resize(count * cols);
  if (count == 0) return;
  hsize_t start[2] = {first, 0}, cnt[2] = {count, cols};
  if (H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, cnt, nullptr) < 0)
    fail(path, name, "cannot select rows");
  Handle mem(H5Screate_simple(static_cast<int>(d.size()), cnt, nullptr), H5Sclose);
  if (H5Dread(dataset, native_type<T>(), mem, space, H5P_DEFAULT, out.data()) < 0)
    fail(path, name, "read failed (truncated or corrupt file)");
}

template <typename T>
void read_vlen(hid_t dataset, const std::string& path, const std::string& name, hsize_t first,
               hsize_t count, std::vector<T>& values, std::vector<int64_t>& offsets) {
  Handle space = space_of(dataset, path, name);
  std::vector<hsize_t> d = dims(dataset);
  if (d.size() != 1) fail(path, name, fmt::format("expected 1-D, has rank {}", d.size()));
  if (first + count > d[0]) fail(path, name, fmt::format("elements [{}, {}) out of range ({})", first, first + count, d[0]));
  offsets.assign(1, 0);
  values.clear();
  if (count == 0) return;
  if (H5Sselect_hyperslab(space, H5S_SELECT_SET, &first, nullptr, &count, nullptr) < 0)
    fail(path, name, "cannot select elements");
  Handle mem(H5Screate_simple(1, &count, nullptr), H5Sclose);
  Handle memtype(H5Tvlen_create(native_type<T>()), H5Tclose);
  check_fits(dataset, path, name, count * 16, "vlen heap references");
  precheck_vlen(dataset, path, name, first, count, sizeof(T));
  std::vector<hvl_t> buf(count, hvl_t{0, nullptr});
  herr_t rc = H5Dread(dataset, memtype, mem, space, H5P_DEFAULT, buf.data());
  if (rc >= 0) {
    size_t total = 0;
    for (const hvl_t& v : buf) total += v.len;
    values.resize(total);
    offsets.resize(count + 1);
    size_t at = 0;
    for (hsize_t i = 0; i < count; ++i) {
      if (buf[i].len) std::copy_n(static_cast<const T*>(buf[i].p), buf[i].len, values.data() + at);
      at += buf[i].len;
      offsets[i + 1] = static_cast<int64_t>(at);
    }
  }
  H5Dvlen_reclaim(memtype, mem, H5P_DEFAULT, buf.data());
  if (rc < 0) fail(path, name, "read failed (truncated or corrupt file)");
}

void write_string_attr(hid_t obj, const std::string& name, const std::string& value) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type, value.empty() ? 1 : value.size());
  H5Tset_strpad(type, H5T_STR_NULLPAD);
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  Handle attr(H5Acreate2(obj, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!attr.valid()) throw DataError("cannot create attribute " + name);
  H5Awrite(attr, type, value.empty() ? "" : value.data());
}

void write_int_attr(hid_t obj, const std::string& name, int64_t value) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  Handle attr(H5Acreate2(obj, name.c_str(), H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!attr.valid()) throw DataError("cannot create attribute " + name);
  H5Awrite(attr, H5T_NATIVE_LLONG, &value);
}

std::string read_string_attr(hid_t obj, const std::string& name) {
  if (H5Aexists(obj, name.c_str()) <= 0) return {};
  Handle attr(H5Aopen(obj, name.c_str(), H5P_DEFAULT), H5Aclose);
  Handle type(H5Aget_type(attr), H5Tclose);
  if (H5Tget_class(type) != H5T_STRING || H5Tis_variable_str(type) > 0) return {};
  std::string s(H5Tget_size(type), '\0');
  Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(mem, s.size());
  H5Tset_strpad(mem, H5T_STR_NULLPAD);
  if (H5Aread(attr, mem, s.data()) < 0) return {};
  s.resize(s.find_last_not_of('\0') + 1);
  return s;
}

#define BERT_H5_INSTANTIATE(T)                                                                     \
  template void read_rows<T>(hid_t, const std::string&, const std::string&, hsize_t, hsize_t,       \
                             std::vector<T>&);
#define BERT_H5_INSTANTIATE_VLEN(T)                                                                \
  template void read_vlen<T>(hid_t, const std::string&, const std::string&, hsize_t, hsize_t,       \
                             std::vector<T>&, std::vector<int64_t>&);
BERT_H5_INSTANTIATE(int8_t)
BERT_H5_INSTANTIATE(int16_t)
BERT_H5_INSTANTIATE(int32_t)
BERT_H5_INSTANTIATE(float)
BERT_H5_INSTANTIATE_VLEN(int8_t)
BERT_H5_INSTANTIATE_VLEN(int16_t)

}  // namespace bert::data::h5
