// MD5 (nettle), only for NVIDIA's dataset checksum scheme (`.chk` files), not for security.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace bert::data {

class Md5 {
 public:
  Md5();
  ~Md5();
  void update(const void* data, size_t n);
  void update(std::string_view s) { update(s.data(), s.size()); }
  std::string hex();  // finishes; lowercase hex digest

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

std::string md5_hex(std::string_view s);

}  // namespace bert::data
