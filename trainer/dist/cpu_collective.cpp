// make_cpu_collective(): which transport the CPU collective takes (BERT_DIST_CPU_TRANSPORT).
#include <iostream>

#include "trainer/dist/comm.h"
#include "trainer/dist/env.h"
#include "trainer/dist/gloo_collective.h"
#include "trainer/dist/shm_collective.h"

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

std::unique_ptr<Collective> make_cpu_collective(const ProcessInfo& p, KVStore& kv) {
  if (p.size == 1) return std::make_unique<NoopCollective>();
  const std::string transport = env_string("BERT_DIST_CPU_TRANSPORT").value_or("auto");
  if (transport != "auto" && transport != "shm" && transport != "tcp")
    throw DistError("environment variable BERT_DIST_CPU_TRANSPORT='" + transport + "' must be auto, shm or tcp");
  const bool one_node = p.num_nodes == 1 && p.local_size == p.size;
  if (transport == "shm" && !one_node)
    throw DistError("BERT_DIST_CPU_TRANSPORT=shm needs every rank on one node; this job has " +
                    std::to_string(p.num_nodes) + " nodes (use auto or tcp)");
  if (transport == "tcp" || !one_node) return make_gloo_collective(p, kv);
  std::string why;
  if (auto shm = try_make_shm_collective(p, kv, &why)) return shm;
  if (transport == "shm") throw DistError("BERT_DIST_CPU_TRANSPORT=shm: no shared-memory collective: " + why);
  if (p.rank == 0) std::cerr << "dist: note: no shared-memory collective (" << why << "); the ranks use Gloo TCP\n";
  return make_gloo_collective(p, kv);
}

}  // namespace bert::dist
