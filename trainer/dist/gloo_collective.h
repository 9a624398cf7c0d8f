// The Gloo collective: TCP between ranks on any nodes (loopback when they share one), rendezvous
// through the KV store. Every rank calls it; DistError naming the address when the ranks cannot connect.
#pragma once
#include <memory>

#include "trainer/dist/comm.h"

namespace bert::dist {

std::unique_ptr<Collective> make_gloo_collective(const ProcessInfo& p, KVStore& kv);

}  // namespace bert::dist
