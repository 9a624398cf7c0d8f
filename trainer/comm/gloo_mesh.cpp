#include "trainer/comm/gloo_mesh.h"

#include <gloo/transport/context.h>
#include <gloo/transport/pair.h>

namespace bert::dist {

std::string pack_addresses(const std::vector<std::vector<char>>& per_rank) {
  std::string out;
  for (const auto& a : per_rank) {
    uint32_t n = static_cast<uint32_t>(a.size());
    for (int b = 0; b < 4; ++b) out.push_back(static_cast<char>((n >> (8 * b)) & 0xff));
    out.append(a.begin(), a.end());
  }
  return out;
}

std::vector<char> address_for(const std::string& packed, int rank, int from_rank) {
  size_t pos = 0;
  for (int r = 0;; ++r) {
    if (pos + 4 > packed.size())
      throw DistError("Gloo address list from rank " + std::to_string(from_rank) + " has no entry for rank " +
                      std::to_string(rank) + " (ranks disagree on the world size?)");
    uint32_t n = 0;
    for (int b = 0; b < 4; ++b) n |= static_cast<uint32_t>(static_cast<unsigned char>(packed[pos + b])) << (8 * b);
    pos += 4;
    if (pos + n > packed.size())
      throw DistError("Gloo address list from rank " + std::to_string(from_rank) + " is truncated");
    if (r == rank) return std::vector<char>(packed.begin() + static_cast<long>(pos), packed.begin() + static_cast<long>(pos + n));
    pos += n;
  }
}

void GlooMeshContext::connect(KVStore& kv, const std::string& key,
                              const std::shared_ptr<gloo::transport::Device>& device) {
  auto transport = device->createContext(rank, size);
  transport->setTimeout(getTimeout());
  std::vector<std::vector<char>> mine(static_cast<size_t>(size));
  for (int peer = 0; peer < size; ++peer)
    if (peer != rank) mine[static_cast<size_t>(peer)] = transport->createPair(peer)->address().bytes();
  kv.put(key, pack_addresses(mine));
  kv.fence();
  for (int peer = 0; peer < size; ++peer)
    if (peer != rank) transport->getPair(peer)->connect(address_for(kv.get(key, peer), rank, peer));
  device_ = device;
  transportContext_ = std::move(transport);
}

}  // namespace bert::dist
