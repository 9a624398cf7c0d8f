#include "trainer/data/md5.h"

#include <cmath>
#include <cstring>

namespace bert::data {
namespace {

constexpr uint32_t kShift[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
                                 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};

struct Table {
  uint32_t k[64];
  Table() {
    for (int i = 0; i < 64; ++i) k[i] = static_cast<uint32_t>(std::floor(std::fabs(std::sin(i + 1.0)) * 4294967296.0));
  }
};

uint32_t rotl(uint32_t x, uint32_t c) { return (x << c) | (x >> (32 - c)); }

}  // namespace

Md5::Md5() : h_{0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u} {}

void Md5::block(const unsigned char* p) {
  static const Table t;
  uint32_t m[16];
  for (int i = 0; i < 16; ++i)
    m[i] = uint32_t(p[4 * i]) | uint32_t(p[4 * i + 1]) << 8 | uint32_t(p[4 * i + 2]) << 16 | uint32_t(p[4 * i + 3]) << 24;
  uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3];
  for (int i = 0; i < 64; ++i) {
    uint32_t f;
    int g;
    if (i < 16) f = (b & c) | (~b & d), g = i;
    else if (i < 32) f = (d & b) | (~d & c), g = (5 * i + 1) % 16;
    else if (i < 48) f = b ^ c ^ d, g = (3 * i + 5) % 16;
    else f = c ^ (b | ~d), g = (7 * i) % 16;
    const uint32_t tmp = d;
    d = c;
    c = b;
    b = b + rotl(a + f + t.k[i] + m[g], kShift[i]);
    a = tmp;
  }
  h_[0] += a;
  h_[1] += b;
  h_[2] += c;
  h_[3] += d;
}

void Md5::update(const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  bytes_ += n;
  while (n > 0) {
    const size_t take = std::min(n, 64 - fill_);
    std::memcpy(buf_ + fill_, p, take);
    fill_ += take;
    p += take;
    n -= take;
    if (fill_ == 64) {
      block(buf_);
      fill_ = 0;
    }
  }
}

std::string Md5::hex() {
  const uint64_t bits = bytes_ * 8;
  const unsigned char pad = 0x80;
  update(&pad, 1);
  const unsigned char zero = 0;
  while (fill_ != 56) update(&zero, 1);
  unsigned char len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(bits >> (8 * i));
  update(len, 8);
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (uint32_t w : h_)
    for (int i = 0; i < 4; ++i) {
      const unsigned char byte = static_cast<unsigned char>(w >> (8 * i));
      out += digits[byte >> 4];
      out += digits[byte & 15];
    }
  return out;
}

std::string md5_hex(std::string_view s) {
  Md5 m;
  m.update(s);
  return m.hex();
}

}  // namespace bert::data
