#include "dataset/tf_bundle.h"

#include <bit>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <snappy-c.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dataset/crc32c.h"
#include "formats/data_error.h"
#include "dataset/file_bytes.h"

static_assert(std::endian::native == std::endian::little, "TF bundles are read as little-endian");

namespace bert::data {
namespace {

constexpr uint64_t kTableMagic = 0xdb4775248b80fb57ULL;
constexpr size_t kFooterSize = 48;

// Bounded cursor over bytes; every overrun is a DataError mentioning `what`.
struct Cursor {
  const unsigned char* p;
  const unsigned char* end;
  const std::string* file;
  const char* what;

  [[noreturn]] void bad(const std::string& msg) const { throw DataError(fmt::format("{}: {}: {}", *file, what, msg)); }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p >= end) bad("truncated varint");
      const unsigned char b = *p++;
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    bad("varint longer than 10 bytes");
  }
  uint32_t fixed32() {
    if (end - p < 4) bad("truncated fixed32");
    uint32_t v;
    std::memcpy(&v, p, 4);
    p += 4;
    return v;
  }
  Cursor sub(uint64_t n) {
    if (static_cast<uint64_t>(end - p) < n) bad("length-delimited field runs past its message");
    Cursor c{p, p + n, file, what};
    p += n;
    return c;
  }
  void skip(int wire) {
    switch (wire) {
      case 0: varint(); break;
      case 1: sub(8); break;
      case 2: sub(varint()); break;
      case 5: sub(4); break;
      default: bad(fmt::format("unsupported protobuf wire type {}", wire));
    }
  }
  bool done() const { return p >= end; }
};

struct Handle {
  uint64_t offset, size;
};

const unsigned char* u8(const std::string& s) { return reinterpret_cast<const unsigned char*>(s.data()); }

// Block contents after crc check and decompression.
std::string read_block(const std::string& file, const std::string& path, Handle h, const char* what) {
  if (h.offset > file.size() || h.size + 5 > file.size() - h.offset)
    throw DataError(fmt::format("{}: {} block [{}, +{}) beyond the end of the file ({} bytes): truncated", path, what,
                                h.offset, h.size, file.size()));
  const unsigned char* b = u8(file) + h.offset;
  const unsigned char type = b[h.size];
  uint32_t stored;
  std::memcpy(&stored, b + h.size + 1, 4);
  const uint32_t actual = crc32c(b, h.size + 1);
  if (crc32c_unmask(stored) != actual)
    throw DataError(fmt::format("{}: {} block at {}: crc32c mismatch (stored {:#010x}, computed {:#010x})", path, what,
                                h.offset, crc32c_unmask(stored), actual));
  const char* raw = reinterpret_cast<const char*>(b);
  if (type == 0) return std::string(raw, h.size);
  if (type != 1) throw DataError(fmt::format("{}: {} block at {}: unknown compression type {}", path, what, h.offset, type));
  size_t n = 0;
  if (snappy_uncompressed_length(raw, h.size, &n) != SNAPPY_OK || n > (size_t{1} << 31) ||
      snappy_validate_compressed_buffer(raw, h.size) != SNAPPY_OK)
    throw DataError(fmt::format("{}: {} block at {}: invalid snappy data", path, what, h.offset));
  std::string out(n, '\0');
  if (snappy_uncompress(raw, h.size, out.data(), &n) != SNAPPY_OK || n != out.size())
    throw DataError(fmt::format("{}: {} block at {}: snappy decompression failed", path, what, h.offset));
  return out;
}

// Entries of one block: shared-prefix keys, values.
void parse_block(const std::string& block, const std::string& path, const char* what,
                 std::vector<std::pair<std::string, std::string>>& out) {
  if (block.size() < 4) throw DataError(fmt::format("{}: {} block too small ({} bytes)", path, what, block.size()));
  uint32_t restarts;
  std::memcpy(&restarts, block.data() + block.size() - 4, 4);
  if ((static_cast<uint64_t>(restarts) + 1) * 4 > block.size())
    throw DataError(fmt::format("{}: {} block: restart count {} does not fit", path, what, restarts));
  const size_t limit = block.size() - (static_cast<size_t>(restarts) + 1) * 4;
  Cursor c{u8(block), u8(block) + limit, &path, what};
  std::string key;
  while (!c.done()) {
    const uint64_t shared = c.varint(), unshared = c.varint(), vlen = c.varint();
    if (shared > key.size()) c.bad("key shares more bytes than the previous key has");
    Cursor k = c.sub(unshared), v = c.sub(vlen);
    key.resize(shared);
    key.append(reinterpret_cast<const char*>(k.p), unshared);
    out.emplace_back(key, std::string(reinterpret_cast<const char*>(v.p), vlen));
  }
}

Handle decode_handle(Cursor& c) {
  Handle h;
  h.offset = c.varint();
  h.size = c.varint();
  return h;
}

TfEntry parse_entry(const std::string& name, const std::string& value, const std::string& path) {
  TfEntry e;
  e.name = name;
  const std::string what = "entry " + name;
  Cursor c{u8(value), u8(value) + value.size(), &path, what.c_str()};
  while (!c.done()) {
    const uint64_t tag = c.varint();
    const int field = static_cast<int>(tag >> 3), wire = static_cast<int>(tag & 7);
    if (field == 1 && wire == 0) e.dtype = static_cast<int>(c.varint());
    else if (field == 2 && wire == 2) {
      Cursor shape = c.sub(c.varint());
      while (!shape.done()) {
        const uint64_t st = shape.varint();
        if ((st >> 3) == 2 && (st & 7) == 2) {
          Cursor dim = shape.sub(shape.varint());
          int64_t size = 0;
          while (!dim.done()) {
            const uint64_t dt = dim.varint();
            if ((dt >> 3) == 1 && (dt & 7) == 0) size = static_cast<int64_t>(dim.varint());
            else dim.skip(static_cast<int>(dt & 7));
          }
          if (size < 0) c.bad(fmt::format("negative dimension {}", size));
          e.shape.push_back(size);
        } else if ((st >> 3) == 3 && (st & 7) == 0) {
          if (shape.varint()) c.bad("unknown rank");
        } else {
          shape.skip(static_cast<int>(st & 7));
        }
      }
    } else if (field == 3 && wire == 0) e.shard_id = static_cast<int>(c.varint());
    else if (field == 4 && wire == 0) e.offset = static_cast<int64_t>(c.varint());
    else if (field == 5 && wire == 0) e.size = static_cast<int64_t>(c.varint());
    else if (field == 6 && wire == 5) {
      e.masked_crc = c.fixed32();
      e.has_crc = true;
    } else if (field == 7) c.bad("partitioned (sliced) variables are not supported");
    else c.skip(wire);
  }
  if (!tf_dtype_name(e.dtype)) c.bad(fmt::format("unknown dtype {}", e.dtype));
  if (e.offset < 0 || e.size < 0) c.bad("negative offset or size");
  const int es = tf_dtype_size(e.dtype);
  if (es > 0 && e.numel() * es != e.size)
    c.bad(fmt::format("size {} bytes does not match shape ({} elements of {})", e.size, e.numel(), tf_dtype_name(e.dtype)));
  return e;
}

}  // namespace

int64_t TfEntry::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

const char* tf_dtype_name(int dtype) {
  switch (dtype) {
    case 1: return "DT_FLOAT";
    case 2: return "DT_DOUBLE";
    case 3: return "DT_INT32";
    case 4: return "DT_UINT8";
    case 5: return "DT_INT16";
    case 6: return "DT_INT8";
    case 7: return "DT_STRING";
    case 8: return "DT_COMPLEX64";
    case 9: return "DT_INT64";
    case 10: return "DT_BOOL";
    case 14: return "DT_BFLOAT16";
    case 17: return "DT_UINT16";
    case 19: return "DT_HALF";
    case 22: return "DT_UINT32";
    case 23: return "DT_UINT64";
    default: return nullptr;
  }
}

int tf_dtype_size(int dtype) {
  switch (dtype) {
    case 4: case 6: case 10: return 1;
    case 5: case 14: case 17: case 19: return 2;
    case 1: case 3: case 22: return 4;
    case 2: case 8: case 9: case 23: return 8;
    default: return 0;
  }
}

std::vector<std::pair<std::string, std::string>> read_sstable(const std::string& path) {
  const std::string file = read_file_bytes(path, "TF index");
  if (file.size() < kFooterSize)
    throw DataError(fmt::format("{}: {} bytes, shorter than the 48-byte table footer: truncated or not a TF index", path,
                                file.size()));
  const unsigned char* footer = u8(file) + file.size() - kFooterSize;
  uint32_t lo, hi;
  std::memcpy(&lo, footer + 40, 4);
  std::memcpy(&hi, footer + 44, 4);
  if ((static_cast<uint64_t>(hi) << 32 | lo) != kTableMagic)
    throw DataError(fmt::format("{}: bad table magic {:#018x} (expected {:#018x}): not a TF checkpoint index", path,
                                static_cast<uint64_t>(hi) << 32 | lo, kTableMagic));
  Cursor fc{footer, footer + 40, &path, "footer"};
  decode_handle(fc);  // metaindex: empty in tensor bundles
  const Handle index = decode_handle(fc);
  std::vector<std::pair<std::string, std::string>> index_entries, out;
  parse_block(read_block(file, path, index, "index"), path, "index", index_entries);
  for (const auto& [sep, handle] : index_entries) {
    Cursor hc{u8(handle), u8(handle) + handle.size(), &path, "index entry"};
    parse_block(read_block(file, path, decode_handle(hc), "data"), path, "data", out);
  }
  return out;
}

struct TfBundle::Mapped {
  std::string path;
  const unsigned char* base = nullptr;
  size_t size = 0;
  ~Mapped() {
    if (base) munmap(const_cast<unsigned char*>(base), size);
  }
};

TfBundle::TfBundle(const std::string& prefix) : prefix_(prefix) {
  const std::string ext = ".index";
  if (prefix_.size() > ext.size() && prefix_.compare(prefix_.size() - ext.size(), ext.size(), ext) == 0)
    prefix_.resize(prefix_.size() - ext.size());
  const std::string index_path = prefix_ + ext;
  auto kv = read_sstable(index_path);
  if (kv.empty() || !kv.front().first.empty())
    throw DataError(fmt::format("{}: no header entry (key \"\"): not a TF tensor bundle", index_path));
  {
    const std::string& h = kv.front().second;
    Cursor c{u8(h), u8(h) + h.size(), &index_path, "header"};
    while (!c.done()) {
      const uint64_t tag = c.varint();
      if (tag == (1 << 3)) num_shards_ = static_cast<int>(c.varint());
      else if (tag == (2 << 3)) {
        if (c.varint() != 0) c.bad("big-endian bundles are not supported");
      } else c.skip(static_cast<int>(tag & 7));
    }
    if (num_shards_ < 1 || num_shards_ > 100000) c.bad(fmt::format("num_shards {} out of range", num_shards_));
  }
  for (size_t i = 1; i < kv.size(); ++i) {
    entries_.push_back(parse_entry(kv[i].first, kv[i].second, index_path));
    if (entries_.back().shard_id < 0 || entries_.back().shard_id >= num_shards_)
      throw DataError(fmt::format("{}: entry {}: shard {} outside [0, {})", index_path, kv[i].first,
                                  entries_.back().shard_id, num_shards_));
  }
  shards_.resize(static_cast<size_t>(num_shards_));
}

TfBundle::~TfBundle() = default;

const unsigned char* TfBundle::bytes(const TfEntry& e, bool verify) {
  auto& m = shards_[static_cast<size_t>(e.shard_id)];
  if (!m) {
    auto mp = std::make_unique<Mapped>();
    mp->path = fmt::format("{}.data-{:05d}-of-{:05d}", prefix_, e.shard_id, num_shards_);
    const int fd = ::open(mp->path.c_str(), O_RDONLY);
    if (fd < 0) throw DataError(fmt::format("{}: cannot open data shard", mp->path));
    struct stat st {};
    fstat(fd, &st);
    mp->size = static_cast<size_t>(st.st_size);
    if (mp->size > 0) {
      void* p = mmap(nullptr, mp->size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        ::close(fd);
        throw DataError(fmt::format("{}: cannot memory-map", mp->path));
      }
      mp->base = static_cast<const unsigned char*>(p);
    }
    ::close(fd);
    m = std::move(mp);
  }
  if (static_cast<uint64_t>(e.offset) + static_cast<uint64_t>(e.size) > m->size)
    throw DataError(fmt::format("{}: tensor {} at [{}, +{}) beyond the end of the file ({} bytes): truncated data",
                                m->path, e.name, e.offset, e.size, m->size));
  const unsigned char* p = m->base ? m->base + e.offset : nullptr;
  if (verify && e.has_crc) {
    const uint32_t actual = crc32c_mask(crc32c(p, static_cast<size_t>(e.size)));
    if (actual != e.masked_crc)
      throw DataError(fmt::format("{}: tensor {}: crc32c mismatch (index says {:#010x}, data gives {:#010x})", m->path,
                                  e.name, e.masked_crc, actual));
  }
  return p;
}

std::vector<float> TfBundle::read_float(const TfEntry& e, bool verify) {
  if (e.dtype != 1)
    throw DataError(fmt::format("{}.index: tensor {} has dtype {}, expected DT_FLOAT", prefix_, e.name,
                                tf_dtype_name(e.dtype)));
  const unsigned char* p = bytes(e, verify);
  std::vector<float> v(static_cast<size_t>(e.numel()));
  if (!v.empty()) std::memcpy(v.data(), p, v.size() * sizeof(float));
  return v;
}

}  // namespace bert::data
