// CPU collectives through one shared-memory segment, for ranks that all share a node: no sockets, each
// element summed once (in rank order, so every rank gets the same bits) and copied to all.
#pragma once
#include <memory>
#include <string>

#include "trainer/dist/comm.h"

namespace bert::dist {

// Collective: every rank calls it. Null, on every rank alike, when the ranks cannot share a segment
// (no room in /dev/shm, separate IPC namespaces such as one container per rank); `why` then says
// why. DistError for what a fallback would not mend (a rank that never arrives, a bad KV store).
std::unique_ptr<Collective> try_make_shm_collective(const ProcessInfo& p, KVStore& kv, std::string* why);

}  // namespace bert::dist
