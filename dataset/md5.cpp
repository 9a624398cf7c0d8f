#include "dataset/md5.h"

#include <nettle/md5.h>

#include "common/hex.h"

namespace bert::data {

struct Md5::Ctx {
  md5_ctx c;
};

Md5::Md5() : ctx_(std::make_unique<Ctx>()) { md5_init(&ctx_->c); }
Md5::~Md5() = default;

void Md5::update(const void* data, size_t n) { md5_update(&ctx_->c, n, static_cast<const uint8_t*>(data)); }

std::string Md5::hex() {
  uint8_t digest[MD5_DIGEST_SIZE];
  md5_digest(&ctx_->c, MD5_DIGEST_SIZE, digest);
  return to_hex(digest, MD5_DIGEST_SIZE);
}

std::string md5_hex(std::string_view s) {
  Md5 m;
  m.update(s);
  return m.hex();
}

}  // namespace bert::data
