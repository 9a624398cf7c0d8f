// dist-smoke: bootstrap check for a launch. Detects the process, exchanges a 128-byte blob (like an
// NCCL unique id) and every rank's host through the KV store, then runs the CPU collective's allreduce
// (float and double), reduce-scatter and allgather, broadcast and barrier, and prints one line per rank with what it saw (transport:
// comm.h's make_cpu_collective) and how long the two allreduces took (allreduce_s).
//   dist-smoke [--rendezvous DIR] [--count N] [--exit-rank R]
//   exit 0 ok, 1 wrong result, 2 bootstrap/collective error; --exit-rank R: rank R exits with 3 after
//   the rendezvous instead of joining the allreduce (to test how a launch fails when a rank dies)
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "trainer/comm/comm.h"

namespace {

std::string hex(const std::string& bytes, size_t max) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < bytes.size() && i < max; ++i) {
    s.push_back(d[static_cast<unsigned char>(bytes[i]) >> 4]);
    s.push_back(d[static_cast<unsigned char>(bytes[i]) & 15]);
  }
  return s;
}

int run(const std::string& rendezvous, size_t count, int exit_rank) {
  using namespace bert::dist;
  ProcessInfo p = detect_process();
  auto kv = make_kv_store(p, rendezvous);

  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  const char* node_name = std::getenv("SLURMD_NODENAME");
  kv->put("where", std::string(node_name ? node_name : host) + ":" + std::to_string(::getpid()));
  if (p.rank == 0) {
    std::string uid(128, '\0');
    std::random_device rd;
    for (auto& c : uid) c = static_cast<char>(rd());
    kv->put("uid", uid);
  }
  kv->fence();
  std::string uid = kv->get("uid", 0);
  std::string peers;
  for (int r = 0; r < p.size; ++r) {
    if (r) peers += ",";
    peers += kv->get("where", r);
  }

  auto coll = make_cpu_collective(p, *kv);
  if (p.rank == exit_rank) {
    std::fprintf(stderr, "dist-smoke: rank %d exits on purpose (--exit-rank)\n", p.rank);
    return 3;
  }
  std::vector<float> f(count, static_cast<float>(p.rank + 1));
  std::vector<double> d(count, 0.5 * (p.rank + 1));
  const auto t0 = std::chrono::steady_clock::now();
  coll->allreduce_sum(f.data(), f.size());
  coll->allreduce_sum(d.data(), d.size());
  const double allreduce_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // sharded updates' pair: the i-th rank of an update group owns an uneven part (the last the rest);
  // each sums its part over the job, then every part reaches every rank of its group
  std::vector<float> g(count, static_cast<float>(p.rank + 1));
  const int parts = coll->update_group().parts;
  std::vector<size_t> bounds(static_cast<size_t>(parts) + 1, count);
  for (int i = 0; i < parts; ++i) bounds[static_cast<size_t>(i)] = std::min(count, count * i * i / (parts * parts));
  coll->reduce_scatter_sum(g.data(), bounds);
  for (size_t& b : bounds) b *= sizeof(float);
  coll->allgather(g.data(), bounds);
  std::string blob = p.rank == p.size - 1 ? uid : std::string(uid.size(), '\0');
  coll->broadcast(blob.data(), blob.size(), p.size - 1);
  coll->barrier();

  const double expect = p.size * (p.size + 1) / 2.0;
  bool ok = uid.size() == 128 && blob == uid;
  for (float x : f) ok = ok && x == static_cast<float>(expect);
  for (float x : g) ok = ok && x == static_cast<float>(expect);
  for (double x : d) ok = ok && x == 0.5 * expect;
  const char* gpus = std::getenv("CUDA_VISIBLE_DEVICES");
  std::printf("rank=%d size=%d local=%d/%d node=%d/%d launcher=%s pmi=%s transport=%s uid=%s peers=[%s] allreduce=%g allreduce_s=%.4f gpus=%s %s\n",
              p.rank, p.size, p.local_rank, p.local_size, p.node, p.num_nodes, p.launcher_name(), p.pmi_name(), coll->transport(),
              hex(uid, 8).c_str(), peers.c_str(), f.empty() ? 0.0 : static_cast<double>(f[0]), allreduce_s, gpus ? gpus : "-",
              ok ? "OK" : "MISMATCH");
  std::fflush(stdout);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string rendezvous;
  size_t count = 1000;
  int exit_rank = -1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--rendezvous" && i + 1 < argc) {
      rendezvous = argv[++i];
    } else if (a == "--exit-rank" && i + 1 < argc) {
      exit_rank = std::atoi(argv[++i]);
    } else if (a == "--count" && i + 1 < argc) {
      count = std::strtoul(argv[++i], nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: dist-smoke [--rendezvous DIR] [--count N] [--exit-rank R]\n");
      return 2;
    }
  }
  try {
    return run(rendezvous, count, exit_rank);
  } catch (const std::exception& e) {  // a DistError (the user's) or any other: one line, exit 2
    std::fprintf(stderr, "dist-smoke: error: %s\n", e.what());
    return 2;
  }
}
