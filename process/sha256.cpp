#include "process/sha256.h"

#include <nettle/sha2.h>

#include <cstdint>
#include <fstream>
#include <stdexcept>

#include "common/hex.h"

namespace bert::harness {
namespace {

std::string hex_digest(sha256_ctx& ctx) {
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&ctx, sizeof digest, digest);
  return to_hex(digest, sizeof digest);
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  sha256_ctx ctx;
  sha256_init(&ctx);
  sha256_update(&ctx, data.size(), reinterpret_cast<const uint8_t*>(data.data()));
  return hex_digest(ctx);
}

std::string sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot read for sha256");
  sha256_ctx ctx;
  sha256_init(&ctx);
  char buf[65536];
  while (in.read(buf, sizeof(buf)) || in.gcount() > 0)
    sha256_update(&ctx, static_cast<size_t>(in.gcount()), reinterpret_cast<const uint8_t*>(buf));
  return hex_digest(ctx);
}

}  // namespace bert::harness
