// Bytes as lowercase hexadecimal, two digits a byte (digests: sha256 of result files, md5 of shards).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace bert {

inline std::string to_hex(const uint8_t* bytes, std::size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 0xf];
  }
  return out;
}

}  // namespace bert
