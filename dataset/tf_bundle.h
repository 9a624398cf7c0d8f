// Reader for TensorFlow's V2 checkpoint ("tensor bundle": TensorFlow's tensor_bundle.proto and the LevelDB table format of its core/lib/io/), without
// TensorFlow: PREFIX.index is a LevelDB-format SSTable (footer + magic, blocks with a compression
// byte and a masked crc32c, snappy via libsnappy) mapping "" to a BundleHeaderProto and each
// tensor name to a BundleEntryProto (protobuf wire format, decoded by hand); the tensors are raw
// little-endian row-major bytes in PREFIX.data-SSSSS-of-NNNNN, memory-mapped.
// Every corruption (bad magic, crc mismatch, truncation, unknown dtype, malformed proto) is a
// DataError naming the file and what is wrong.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "formats/data_error.h"

namespace bert::data {

struct TfEntry {
  std::string name;
  int dtype = 0;  // TF DataType enum (DT_FLOAT = 1, DT_INT64 = 9, ...)
  std::vector<int64_t> shape;
  int shard_id = 0;
  int64_t offset = 0, size = 0;
  bool has_crc = false;
  uint32_t masked_crc = 0;
  int64_t numel() const;
};

const char* tf_dtype_name(int dtype);  // "DT_FLOAT", ...; nullptr for unknown values
int tf_dtype_size(int dtype);          // bytes per element; 0 for DT_STRING/unknown

class TfBundle {
 public:
  // `prefix` as TF names it ("model.ckpt-28252"), or the .index file itself.
  explicit TfBundle(const std::string& prefix);
  ~TfBundle();
  TfBundle(const TfBundle&) = delete;
  TfBundle& operator=(const TfBundle&) = delete;

  const std::vector<TfEntry>& entries() const { return entries_; }  // key order, header excluded
  int num_shards() const { return num_shards_; }
  const std::string& prefix() const { return prefix_; }
  // Raw bytes of an entry in its data shard (bounds checked; crc checked when `verify`).
  const unsigned char* bytes(const TfEntry& e, bool verify = true);
  // A DT_FLOAT tensor as floats.
  std::vector<float> read_float(const TfEntry& e, bool verify = true);

 private:
  struct Mapped;
  std::string prefix_;
  int num_shards_ = 1;
  std::vector<TfEntry> entries_;
  std::vector<std::unique_ptr<Mapped>> shards_;
};

// The LevelDB-table layer, exposed for tests: every key/value of an SSTable file's data blocks in
// order.
std::vector<std::pair<std::string, std::string>> read_sstable(const std::string& path);

}  // namespace bert::data
