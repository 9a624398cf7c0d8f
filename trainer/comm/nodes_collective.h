// Ranks on several nodes with more than one rank on some: shared memory between the ranks of each node
// (shm_collective.h), Gloo TCP between the nodes' local ranks 0 only. The network carries one copy of
// the data per node, not one per rank.
#pragma once
#include <memory>

#include "trainer/comm/comm.h"
#include "trainer/comm/shm_collective.h"

namespace bert::dist {

// Every rank of the job calls it together, with its node's group (transport "shm+tcp").
std::unique_ptr<Collective> make_nodes_collective(const ProcessInfo& p, KVStore& kv, std::unique_ptr<ShmGroup> group);

}  // namespace bert::dist
