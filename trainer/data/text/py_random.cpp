#include "trainer/data/text/py_random.h"

#include <bit>

namespace bert::data::text {

void PyRandom::init_genrand(uint32_t s) {
  mt_[0] = s;
  for (int i = 1; i < 624; ++i) mt_[i] = 1812433253u * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + static_cast<uint32_t>(i);
  index_ = 624;
}

PyRandom::PyRandom(uint64_t seed) {
  uint32_t key[2] = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
  const int key_len = (seed >> 32) ? 2 : 1;
  init_genrand(19650218u);
  int i = 1, j = 0;
  for (int k = 624 > key_len ? 624 : key_len; k; --k) {
    mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1664525u)) + key[j] + static_cast<uint32_t>(j);
    ++i;
    ++j;
    if (i >= 624) {
      mt_[0] = mt_[623];
      i = 1;
    }
    if (j >= key_len) j = 0;
  }
  for (int k = 623; k; --k) {
    mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1566083941u)) - static_cast<uint32_t>(i);
    ++i;
    if (i >= 624) {
      mt_[0] = mt_[623];
      i = 1;
    }
  }
  mt_[0] = 0x80000000u;
  index_ = 624;
}

void PyRandom::refill() {
  constexpr uint32_t kUpper = 0x80000000u, kLower = 0x7fffffffu, kMatrix = 0x9908b0dfu;
  int k = 0;
  for (; k < 624 - 397; ++k) {
    const uint32_t y = (mt_[k] & kUpper) | (mt_[k + 1] & kLower);
    mt_[k] = mt_[k + 397] ^ (y >> 1) ^ ((y & 1u) ? kMatrix : 0u);
  }
  for (; k < 623; ++k) {
    const uint32_t y = (mt_[k] & kUpper) | (mt_[k + 1] & kLower);
    mt_[k] = mt_[k + (397 - 624)] ^ (y >> 1) ^ ((y & 1u) ? kMatrix : 0u);
  }
  const uint32_t y = (mt_[623] & kUpper) | (mt_[0] & kLower);
  mt_[623] = mt_[396] ^ (y >> 1) ^ ((y & 1u) ? kMatrix : 0u);
  index_ = 0;
}

uint32_t PyRandom::genrand_uint32() {
  if (index_ >= 624) refill();
  uint32_t y = mt_[index_++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

double PyRandom::random() {
  const uint32_t a = genrand_uint32() >> 5, b = genrand_uint32() >> 6;
  return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

uint64_t PyRandom::getrandbits(int k) {
  if (k <= 32) return genrand_uint32() >> (32 - k);
  const uint64_t low = genrand_uint32();
  return low | (static_cast<uint64_t>(genrand_uint32() >> (64 - k)) << 32);
}

uint64_t PyRandom::randbelow(uint64_t n) {
  const int k = std::bit_width(n);
  uint64_t r = getrandbits(k);
  while (r >= n) r = getrandbits(k);
  return r;
}

int64_t PyRandom::randint(int64_t a, int64_t b) {
  return a + static_cast<int64_t>(randbelow(static_cast<uint64_t>(b - a) + 1));
}

}  // namespace bert::data::text
