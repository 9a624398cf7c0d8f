// Writing MLPerf BERT HDF5 shards in any layout (shard_io.h), for the dataset tool (library
// bert_formats_write; the trainer only reads shards). A shard never looks complete before it is:
// it is written as PATH.tmp and renamed.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "formats/sequences.h"
#include "formats/shard_io.h"

namespace bert::data {

// Writes `seqs` in `format` (packed needs seqs.pack_off). Writes to PATH.tmp and renames, so a
// failed write never leaves a file that looks complete.
void write_shard(const std::string& path, const SequenceSet& seqs, Format format, const Limits& limits);

// A fixed-layout shard of `rows` rows written block by block (memory bounded by the block, not
// the file). It lives as PATH.tmp until finish() renames it; destroyed unfinished, it is removed.
class FixedShardWriter {
 public:
  FixedShardWriter(const std::string& path, int64_t rows, const Limits& limits);
  ~FixedShardWriter();
  FixedShardWriter(const FixedShardWriter&) = delete;
  FixedShardWriter& operator=(const FixedShardWriter&) = delete;
  void write(const SequenceSet& block);  // the next block.size() rows
  void finish();                         // DataError unless exactly `rows` rows were written

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bert::data
