// make_gloo_collective(): Gloo over TCP, rendezvous through the KV store.
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/math.h>
#include <gloo/transport/tcp/device.h>
#include <unistd.h>

#include <csignal>

#include <atomic>
#include <chrono>

#include "trainer/comm/gloo_collective.h"
#include "trainer/comm/env.h"
#include "trainer/comm/gloo_mesh.h"

namespace bert::dist {
namespace {

gloo::transport::tcp::attr device_attr(const ProcessInfo& p) {
  gloo::transport::tcp::attr a;
  auto iface = env_string("BERT_GLOO_IFACE");
  if (!iface) iface = env_string("GLOO_SOCKET_IFNAME");
  if (iface) {
    a.iface = *iface;
  } else if (auto host = env_string("BERT_GLOO_HOST")) {
    a.hostname = *host;
  } else if (p.num_nodes == 1 && p.local_size == p.size) {
    a.hostname = "127.0.0.1";
  } else {
    char name[256] = {0};
    if (::gethostname(name, sizeof name - 1) != 0) throw DistError("gethostname failed");
    a.hostname = name;
  }
  return a;
}

class GlooCollective final : public Collective {
 public:
  GlooCollective(const ProcessInfo& p, KVStore& kv, const std::string& key) : rank_(p.rank), size_(p.size) {
    static std::atomic<int> instances{0};
    auto attr = device_attr(p);
    const std::string where = attr.iface.empty() ? "host " + attr.hostname : "interface " + attr.iface;
    try {
      device_ = gloo::transport::tcp::CreateDevice(attr);
      auto mesh = std::make_shared<GlooMeshContext>(p.rank, p.size);
      mesh->setTimeout(collective_timeout());
      mesh->connect(kv, key.empty() ? "gloo" + std::to_string(instances++) : key, device_);
      context_ = mesh;
    } catch (const DistError&) {
      throw;
    } catch (const std::exception& e) {
      throw DistError("Gloo TCP rendezvous of rank " + std::to_string(p.rank) + " of " + std::to_string(p.size) +
                      " on " + where + " failed: " + e.what() +
                      " (set BERT_GLOO_IFACE or BERT_GLOO_HOST to an address the other ranks can reach)");
    }
  }

  void allreduce_sum(float* data, size_t n) override { allreduce(data, n, "float"); }
  void allreduce_sum(double* data, size_t n) override { allreduce(data, n, "double"); }

  void broadcast(void* data, size_t bytes, int root) override {
    check_broadcast_root(root, size_);
    if (bytes == 0) return;
    guarded("broadcast", [&] {
      gloo::BroadcastOptions opts(context_);
      opts.setOutput(static_cast<char*>(data), bytes);
      opts.setRoot(root);
      opts.setTag(next_tag());
      gloo::broadcast(opts);
    });
  }

  void barrier() override {
    guarded("barrier", [&] {
      gloo::BarrierOptions opts(context_);
      opts.setTag(next_tag());
      gloo::barrier(opts);
    });
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const char* transport() const override { return "tcp"; }

 private:
  template <class T>
  void allreduce(T* data, size_t n, const char* type) {
    if (n == 0) return;
    guarded(std::string("allreduce of ") + std::to_string(n) + " " + type, [&] {
      gloo::AllreduceOptions opts(context_);
      opts.setOutput(data, n);
      void (*sum)(void*, const void*, const void*, size_t) = &gloo::sum<T>;
      opts.setReduceFunction(sum);
      opts.setTag(next_tag());
      gloo::allreduce(opts);
    });
  }

  template <class F>
  void guarded(const std::string& what, F&& op) {
    try {
      op();
    } catch (const std::exception& e) {
      throw DistError("Gloo " + what + " failed on rank " + std::to_string(rank_) + ": " + e.what() +
                      " (a peer rank exited or timed out; BERT_DIST_COLL_TIMEOUT_S sets the wait)");
    }
  }

  uint32_t next_tag() { return tag_++ & 0xffffff; }

  int rank_, size_;
  uint32_t tag_ = 0;
  std::shared_ptr<gloo::transport::Device> device_;
  std::shared_ptr<gloo::Context> context_;
};

}  // namespace

std::unique_ptr<Collective> make_gloo_collective(const ProcessInfo& p, KVStore& kv, const std::string& key) {
  // Gloo writes to sockets without MSG_NOSIGNAL: a peer that died must give an error, not SIGPIPE.
  struct sigaction old {};
  if (::sigaction(SIGPIPE, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) ::signal(SIGPIPE, SIG_IGN);
  return std::make_unique<GlooCollective>(p, kv, key);
}

}  // namespace bert::dist
