// Spill files: sequences routed to their output shard on disk, then each output shard assembled
// from its file in a planned order. Used where every input shard feeds every output shard (global
// packing, the sample shuffle): memory stays at one shard plus the write buffers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "formats/sequences.h"

namespace bert::data {

// Record in a spill file: pack (within its output shard), slot, length, masked count, label as
// packed native-endian fields (kSpillHeadBytes), then the token ids, segment ids, masked positions
// and masked ids. The files live only for the run, on the machine that writes them.
struct RecordHead {
  uint32_t pack = 0;
  uint16_t slot = 0, len = 0, masked = 0;
  int8_t nsp = 0;
};

class SpillFiles {
 public:
  SpillFiles(std::string dir, int shards) : dir_(std::move(dir)), buf_(static_cast<size_t>(shards)) {}
  std::string path(int m) const;
  void add(int m, const RecordHead& h, const SequenceSet& s, int64_t i);  // sequence i of s to shard m
  void flush();  // DataError naming the file if it cannot be written

 private:
  void put(std::string& b, const void* p, size_t n);
  std::string dir_;
  std::vector<std::string> buf_;
  size_t buffered_ = 0;
};

// Output shard from its spill file: records ordered by (pack, slot), packs 0..packs-1 each present.
SequenceSet assemble_shard(const std::string& spill, int64_t packs);

// Removes the spill directory, and unless released the files this run wrote (no partial result
// left behind on an error).
class SpillCleanup {
 public:
  explicit SpillCleanup(std::string spill_dir) : spill_dir_(std::move(spill_dir)) {}
  ~SpillCleanup();
  SpillCleanup(const SpillCleanup&) = delete;
  SpillCleanup& operator=(const SpillCleanup&) = delete;
  void wrote(const std::string& f) { written_.push_back(f); }
  void release() { done_ = true; }

 private:
  std::string spill_dir_;
  std::vector<std::string> written_;
  bool done_ = false;
};

}  // namespace bert::data
