// CPython's `random.Random` (MT19937), bit for bit: what the reference generator draws from.
// Seeding: init_by_array over the 32-bit words of the seed (least significant first); random() =
// (a>>5 * 2^26 + b>>6) / 2^53; getrandbits(k) takes the top k bits of each 32-bit output;
// randbelow(n) redraws getrandbits(bit_length(n)) while >= n (so randbelow(1) still draws);
// shuffle walks i = n-1 .. 1 with j = randbelow(i+1). Stable across CPython 3.6-3.13.
#pragma once
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace bert::data::text {

class PyRandom {
 public:
  explicit PyRandom(uint64_t seed);        // random.Random(seed) for seed >= 0
  uint32_t genrand_uint32() {
    if (index_ >= 624) refill();
    uint32_t y = mt_[index_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
  }
  double random() {  // random.random()
    const uint32_t a = genrand_uint32() >> 5, b = genrand_uint32() >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
  }
  uint64_t getrandbits(int k) {  // 1 <= k <= 64
    if (k <= 32) return genrand_uint32() >> (32 - k);
    const uint64_t low = genrand_uint32();
    return low | (static_cast<uint64_t>(genrand_uint32() >> (64 - k)) << 32);
  }
  uint64_t randbelow(uint64_t n) {  // n >= 1
    const int k = std::bit_width(n);
    uint64_t r = getrandbits(k);
    while (r >= n) r = getrandbits(k);
    return r;
  }
  int64_t randint(int64_t a, int64_t b) {  // a <= b
    return a + static_cast<int64_t>(randbelow(static_cast<uint64_t>(b - a) + 1));
  }
  template <typename T>
  void shuffle(T* x, size_t n) {
    for (size_t i = n; i-- > 1;) std::swap(x[i], x[randbelow(i + 1)]);
  }

 private:
  void init_genrand(uint32_t s);
  void refill();
  uint32_t mt_[624];
  int index_ = 624;
};

}  // namespace bert::data::text
