#include "dataset/text/py_random.h"

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

}  // namespace bert::data::text
