// MD5 (RFC 1321), only for NVIDIA's dataset checksum scheme (`.chk` files), not for security.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace bert::data {

class Md5 {
 public:
  Md5();
  void update(const void* data, size_t n);
  void update(std::string_view s) { update(s.data(), s.size()); }
  std::string hex();  // finishes; lowercase hex digest

 private:
  void block(const unsigned char* p);
  uint32_t h_[4];
  uint64_t bytes_ = 0;
  unsigned char buf_[64];
  size_t fill_ = 0;
};

std::string md5_hex(std::string_view s);

}  // namespace bert::data
