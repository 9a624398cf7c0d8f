// SHA-256 of files, for the result checksums in summary.md (FIPS 180-4).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace bert::harness {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t len);
  std::string hex_digest();  // finishes the hash; call once

 private:
  void block(const uint8_t* p);
  uint32_t h_[8];
  uint8_t buf_[64];
  size_t buf_len_ = 0;
  uint64_t total_ = 0;
};

std::string sha256_hex(std::string_view data);
// Throws std::runtime_error naming the file when it cannot be read.
std::string sha256_file(const std::string& path);

}  // namespace bert::harness
