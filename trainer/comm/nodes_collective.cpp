#include "trainer/comm/nodes_collective.h"

#include <atomic>
#include <string>
#include <vector>

#include "trainer/comm/gloo_collective.h"

namespace bert::dist {
namespace {

// The KV store as the nodes' local ranks 0 see it among themselves: rank r of that group is node r's.
// Fences stay the job's: every rank calls them.
class LeadersKV final : public KVStore {
 public:
  LeadersKV(KVStore& kv, std::vector<int> leaders) : kv_(kv), leaders_(std::move(leaders)) {}
  void put(const std::string& key, const std::string& value) override { kv_.put("leaders." + key, value); }
  void fence() override { kv_.fence(); }
  std::string get(const std::string& key, int node) override {
    return kv_.get("leaders." + key, leaders_.at(static_cast<size_t>(node)));
  }

 private:
  KVStore& kv_;
  std::vector<int> leaders_;
};

class NodesCollective final : public Collective {
 public:
  NodesCollective(const ProcessInfo& p, KVStore& kv, std::unique_ptr<ShmGroup> group)
      : rank_(p.rank),
        size_(p.size),
        node_(p.node),
        num_nodes_(p.num_nodes),
        local_rank_(p.local_rank),
        local_size_(p.local_size),
        group_(std::move(group)) {
    static std::atomic<int> instances{0};
    const std::string key = "gloo-nodes" + std::to_string(instances++);
    std::vector<int> leaders(static_cast<size_t>(p.num_nodes), -1);
    for (int r = 0; r < p.size; ++r)
      if (group_->local_of()[static_cast<size_t>(r)] == 0) leaders.at(static_cast<size_t>(group_->node_of()[static_cast<size_t>(r)])) = r;
    for (int n = 0; n < p.num_nodes; ++n)
      if (leaders[static_cast<size_t>(n)] < 0) throw DistError("node " + std::to_string(n) + " has no local rank 0");
    if (p.local_rank == 0) {
      ProcessInfo leader = p;
      leader.rank = p.node, leader.size = p.num_nodes, leader.local_rank = 0, leader.local_size = 1;
      LeadersKV leaders_kv(kv, leaders);
      between_ = make_gloo_collective(leader, leaders_kv, key);
    } else {
      kv.fence();  // the one fence of the leaders' Gloo rendezvous (gloo_collective.h)
    }
  }

  void allreduce_sum(float* data, size_t n) override { allreduce(data, n); }
  void allreduce_sum(double* data, size_t n) override { allreduce(data, n); }

  void broadcast(void* data, size_t bytes, int root) override {
    check_broadcast_root(root, size_);
    const int root_node = group_->node_of()[static_cast<size_t>(root)];
    if (node_ == root_node) group_->broadcast(data, bytes, group_->local_of()[static_cast<size_t>(root)]);
    if (between_) between_->broadcast(data, bytes, root_node);
    if (node_ != root_node) group_->broadcast(data, bytes, 0);
  }

  void barrier() override {
    group_->barrier();
    if (between_) between_->barrier();
    group_->barrier();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const char* transport() const override { return "shm+tcp"; }

  // A copy of the update per node, split among its ranks: LAMB's time and memory per rank as on one
  // node, the network carrying what allreduce_sum carries (reduce_scatter_sum is the default: the
  // scaling, then allreduce_sum), the weights gathered within the node.
  UpdateGroup update_group() const override { return {local_size_, local_rank_, node_, num_nodes_}; }
  bool shards_updates() const override { return true; }
  void allgather(void* data, const std::vector<size_t>& byte_bounds) override {
    group_->allgather(data, ShmGroup::parts_of(byte_bounds, local_size_));
  }

 private:
  // The node's sum into its local rank 0, the nodes' sums over TCP there, the total to the node.
  template <class T>
  void allreduce(T* data, size_t n) {
    if (n == 0) return;
    group_->allreduce_sum(data, n, false);
    if (between_) between_->allreduce_sum(data, n);
    group_->broadcast(data, n * sizeof(T), 0);
  }

  int rank_, size_, node_, num_nodes_, local_rank_, local_size_;
  std::unique_ptr<ShmGroup> group_;
  std::unique_ptr<Collective> between_;  // the nodes' local ranks 0 only
};

}  // namespace

std::unique_ptr<Collective> make_nodes_collective(const ProcessInfo& p, KVStore& kv, std::unique_ptr<ShmGroup> group) {
  return std::make_unique<NodesCollective>(p, kv, std::move(group));
}

}  // namespace bert::dist
