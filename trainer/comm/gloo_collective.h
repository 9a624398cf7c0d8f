// The Gloo collective: TCP between ranks on any nodes (loopback when they share one), rendezvous
// through the KV store (one put and one fence: GlooMeshContext::connect). Every rank of `p` calls it;
// DistError naming the address when the ranks cannot connect. `key`: the rendezvous key, the same on
// every rank (empty: "gloo<n>" for the process's n-th Gloo collective).
#pragma once
#include <memory>
#include <string>

#include "trainer/comm/comm.h"

namespace bert::dist {

std::unique_ptr<Collective> make_gloo_collective(const ProcessInfo& p, KVStore& kv, const std::string& key = "");

}  // namespace bert::dist
