#include "dataset/crc32c.h"

#include <algorithm>
#include <isa-l/crc.h>

namespace bert::data {

uint32_t crc32c(const void* data, size_t n, uint32_t crc) {
  // ISA-L's iSCSI CRC is CRC-32C on the raw register: pass ~crc in, invert the result.
  auto* p = static_cast<unsigned char*>(const_cast<void*>(data));  // ISA-L only reads it
  uint32_t reg = ~crc;
  while (n > 0) {
    const int chunk = static_cast<int>(std::min<size_t>(n, size_t{1} << 30));
    reg = crc32_iscsi(p, chunk, reg);
    p += chunk;
    n -= static_cast<size_t>(chunk);
  }
  return ~reg;
}

}  // namespace bert::data
