// make_cpu_collective(): which transport the CPU collective takes (BERT_DIST_CPU_TRANSPORT).
#include <iostream>

#include "trainer/comm/comm.h"
#include "trainer/comm/env.h"
#include "trainer/comm/gloo_collective.h"
#include "trainer/comm/nodes_collective.h"
#include "trainer/comm/shm_collective.h"

namespace bert::dist {
namespace {

class NoopCollective final : public Collective {
 public:
  void allreduce_sum(float*, size_t) override {}
  void allreduce_sum(double*, size_t) override {}
  void broadcast(void*, size_t, int root) override {
    if (root != 0) throw DistError("broadcast root " + std::to_string(root) + " in a 1-rank job");
  }
  void barrier() override {}
  int rank() const override { return 0; }
  int size() const override { return 1; }
  const char* transport() const override { return "none"; }
};

}  // namespace

void check_broadcast_root(int root, int size) {
  if (root < 0 || root >= size)
    throw DistError("broadcast root " + std::to_string(root) + " outside [0, " + std::to_string(size) + ")");
}

void check_shard_bounds(const std::vector<size_t>& bounds, int parts) {
  bool ok = bounds.size() == static_cast<size_t>(parts) + 1 && bounds[0] == 0;
  for (size_t r = 1; ok && r < bounds.size(); ++r) ok = bounds[r - 1] <= bounds[r];
  if (ok) return;
  std::string got;
  for (size_t r = 0; r < bounds.size() && r < 8; ++r) got += (r ? ", " : "") + std::to_string(bounds[r]);
  throw DistError("a sharded collective needs " + std::to_string(parts + 1) + " ascending offsets from 0, got [" + got +
                  (bounds.size() > 8 ? ", ...]" : "]"));
}

void Collective::reduce_scatter_sum(float* data, const std::vector<size_t>& bounds, float scale) {
  check_shard_bounds(bounds, update_group().parts);
  if (scale != 1.0f)
    for (size_t i = 0; i < bounds.back(); ++i) data[i] *= scale;
  allreduce_sum(data, bounds.back());
}

void Collective::allgather(void* data, const std::vector<size_t>& byte_bounds) {
  if (update_group().copies != 1) throw DistError("allgather: the default broadcasts over the job, which is one group only");
  check_shard_bounds(byte_bounds, size());
  for (int r = 0; r < size(); ++r)
    broadcast(static_cast<char*>(data) + byte_bounds[static_cast<size_t>(r)],
              byte_bounds[static_cast<size_t>(r) + 1] - byte_bounds[static_cast<size_t>(r)], r);
}

std::unique_ptr<Collective> make_cpu_collective(const ProcessInfo& p, KVStore& kv) {
  if (p.size == 1) return std::make_unique<NoopCollective>();
  const std::string transport = env_string("BERT_DIST_CPU_TRANSPORT").value_or("auto");
  if (transport != "auto" && transport != "shm" && transport != "tcp")
    throw DistError("environment variable BERT_DIST_CPU_TRANSPORT='" + transport + "' must be auto, shm or tcp");
  // auto: shared memory on one node only; across nodes Gloo, until shm+tcp has been timed on real nodes
  // (the same choice on every rank: size and num_nodes are the job's)
  if (transport == "tcp" || (transport == "auto" && p.num_nodes > 1)) return make_gloo_collective(p, kv);
  std::string why;
  if (auto group = try_make_shm_group(p, kv, &why)) {
    if (p.num_nodes == 1) return make_shm_collective(p, std::move(group));
    return make_nodes_collective(p, kv, std::move(group));
  }
  if (transport == "shm") throw DistError("BERT_DIST_CPU_TRANSPORT=shm: no shared-memory collective: " + why);
  if (p.rank == 0) std::cerr << "dist: note: no shared-memory collective (" << why << "); the ranks use Gloo TCP\n";
  return make_gloo_collective(p, kv);
}

}  // namespace bert::dist
