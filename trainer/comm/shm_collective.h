// CPU collectives through shared memory between the ranks of one node: no sockets, each element summed
// once (in local-rank order, so every rank of the node gets the same bits) and copied to all.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "trainer/comm/comm.h"

namespace bert::dist {

// The ranks of this rank's node, sharing one segment; local ranks as in ProcessInfo.
class ShmGroup {
 public:
  virtual ~ShmGroup() = default;
  // The sum over the node's ranks, into every rank's buffer (to_all) or local rank 0's only.
  virtual void allreduce_sum(float* data, size_t n, bool to_all) = 0;
  virtual void allreduce_sum(double* data, size_t n, bool to_all) = 0;
  virtual void broadcast(void* data, size_t bytes, int local_root) = 0;
  // Local rank l owns [parts[l].first, parts[l].second) (floats, then bytes): the sum over the node of
  // its part (each rank's values times its `scale`), into its buffer there; each part copied to every rank.
  using Parts = std::vector<std::pair<size_t, size_t>>;
  // Parts from parts+1 ascending offsets (check_shard_bounds), part i at index i.
  static Parts parts_of(const std::vector<size_t>& bounds, int parts);
  virtual void reduce_scatter_sum(float* data, const Parts& parts, float scale) = 0;
  virtual void allgather(void* data, const Parts& byte_parts) = 0;
  virtual void barrier() = 0;
  // Where each rank of the job is, from the rendezvous: its node and its local rank there.
  virtual const std::vector<int>& node_of() const = 0;
  virtual const std::vector<int>& local_of() const = 0;
};

// Every rank of the job calls it together (the KV fences are the job's). Null, on every rank alike,
// when the ranks of some node cannot share a segment (no room in /dev/shm, a /dev/shm per rank as in a
// container of its own); `why` then says why. DistError for what a fallback would not mend (a rank that
// never arrives, a bad KV store).
std::unique_ptr<ShmGroup> try_make_shm_group(const ProcessInfo& p, KVStore& kv, std::string* why);

// Every rank on one node: the group is the job's collective (transport "shm").
std::unique_ptr<Collective> make_shm_collective(const ProcessInfo& p, std::unique_ptr<ShmGroup> group);

}  // namespace bert::dist
