// A small portable PRNG (xoshiro256** seeded by splitmix64). std:: distributions are
// implementation-defined, so synthetic data, shuffles and packing use this to stay identical on
// every platform and standard library.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <utility>

namespace bert::data {

inline uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class Rng {
 public:
  // Seeded from a list of integers (seed, epoch, shard, ...): different lists give unrelated streams.
  Rng(std::initializer_list<uint64_t> keys) {
    uint64_t x = 0x5eed5eed5eed5eedULL;
    for (uint64_t k : keys) {
      x ^= k;
      splitmix64(x);
    }
    for (auto& w : s_) w = splitmix64(x);
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, n), n > 0 (Lemire's multiply-shift with rejection: unbiased).
  uint64_t below(uint64_t n) {
    unsigned __int128 m = static_cast<unsigned __int128>(next()) * n;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < n) {
      const uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<unsigned __int128>(next()) * n;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  template <typename It>
  void shuffle(It first, It last) {  // Fisher-Yates
    for (auto n = last - first; n > 1; --n) std::swap(first[n - 1], first[below(static_cast<uint64_t>(n))]);
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace bert::data
