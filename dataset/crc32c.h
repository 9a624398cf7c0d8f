// CRC-32C (Castagnoli) and LevelDB/TF's masking of stored CRCs (reference/trainer.md §5.2).
#pragma once
#include <cstddef>
#include <cstdint>

namespace bert::data {

uint32_t crc32c(const void* data, size_t n, uint32_t crc = 0);  // crc = previous value to extend
inline uint32_t crc32c_mask(uint32_t c) { return ((c >> 15) | (c << 17)) + 0xa282ead8u; }
inline uint32_t crc32c_unmask(uint32_t m) {
  const uint32_t r = m - 0xa282ead8u;
  return (r >> 17) | (r << 15);
}

}  // namespace bert::data
