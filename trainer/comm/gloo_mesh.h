// A Gloo context whose full mesh of TCP pairs is connected through our KVStore: each rank puts the
// addresses of its n-1 pairs as one value, one fence, then reads its peers' entries for it. (Gloo's
// own rendezvous::Store protocol interleaves sets and gets differently on each rank, which cannot be
// lined up with the fences that PMI2/PMIx need.)
#pragma once
#include <gloo/context.h>
#include <gloo/transport/device.h>

#include <memory>
#include <string>
#include <vector>

#include "trainer/comm/comm.h"

namespace bert::dist {

class GlooMeshContext final : public gloo::Context {
 public:
  GlooMeshContext(int rank, int size) : gloo::Context(rank, size) {}
  // All ranks call this together; `key` must be the same on every rank and unused before.
  void connect(KVStore& kv, const std::string& key, const std::shared_ptr<gloo::transport::Device>& device);
};

// One value holding an address per peer: "<4-byte little-endian length><bytes>" per rank (own one empty).
std::string pack_addresses(const std::vector<std::vector<char>>& per_rank);
std::vector<char> address_for(const std::string& packed, int rank, int from_rank);

}  // namespace bert::dist
