// KV store over a rendezvous directory shared by all ranks (local launches, or any shared filesystem).
// Layout: <dir>/kv/r<rank>/<key> (written to a temp name, then renamed: readers never see half a
// value) and <dir>/fence/<n>.r<rank> markers. The directory must be fresh for each launch.
#pragma once
#include <chrono>
#include <filesystem>
#include <string>

#include "trainer/comm/comm.h"

namespace bert::dist {

class FileKVStore final : public KVStore {
 public:
  FileKVStore(std::filesystem::path dir, int rank, int size, std::chrono::milliseconds timeout);
  void put(const std::string& key, const std::string& value) override;
  void fence() override;
  std::string get(const std::string& key, int from_rank) override;

 private:
  std::filesystem::path dir_;
  int rank_, size_;
  std::chrono::milliseconds timeout_;
  int fences_ = 0;
};

}  // namespace bert::dist
