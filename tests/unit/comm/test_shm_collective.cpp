// The shared-memory collective between real processes (fork) over the file rendezvous: the sums (the
// same bits on every rank, in rank order), chunking past one slot, broadcast, a peer that exits or
// dies, nothing left in /dev/shm, the sharded pair (reduce-scatter, allgather; Gloo's defaults too), the fallback to TCP when the ranks cannot share a segment, two
// emulated nodes (shared memory within each, TCP between them), and BERT_DIST_CPU_TRANSPORT.
#include <doctest/doctest.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "tests/unit/comm/env_guard.h"
#include "tests/unit/comm/fork_ranks.h"
#include "trainer/comm/comm.h"
#include "trainer/comm/gloo_collective.h"
#include "trainer/comm/shm_collective.h"

using namespace bert::dist;
using bert::dist::test::EnvGuard;
using bert::dist::test::fork_ranks;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& what) {
  fs::path dir = fs::temp_directory_path() / ("bert-shm-" + what + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

// Child body: the harness local launcher's variables, then `body` on the collective `make` returns.
template <class Make, class Body>
int as_local_rank(int rank, int size, const fs::path& dir, Make make, Body body) {
  EnvGuard env;
  env.set("RANK", std::to_string(rank)).set("WORLD_SIZE", std::to_string(size)).set("BERT_DIST_TIMEOUT_S", "20");
  env.set("BERT_DIST_COLL_TIMEOUT_S", "20");
  ProcessInfo p = detect_process();
  auto kv = make_kv_store(p, dir.string());
  std::unique_ptr<Collective> coll = make(p, *kv);
  if (!coll) return 8;
  if (coll->rank() != rank || coll->size() != size) return 5;
  return body(*coll);
}

std::unique_ptr<Collective> shm_or_null(const ProcessInfo& p, KVStore& kv) {
  std::string why;
  auto g = try_make_shm_group(p, kv, &why);
  if (!g) std::fprintf(stderr, "rank %d: no shared-memory collective: %s\n", p.rank, why.c_str());
  return g ? make_shm_collective(p, std::move(g)) : nullptr;
}

// Rank r's input: random floats, the same for a given (r, n) in every process.
std::vector<float> input_of(int r, size_t n) {
  std::mt19937 g(static_cast<unsigned>(1000 + r));
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> x(n);
  for (auto& v : x) v = d(g);
  return x;
}

std::vector<int> zeros(int n) { return std::vector<int>(static_cast<size_t>(n), 0); }

int segments_named_for(pid_t pid) {
  int n = 0;
  const std::string prefix = "bert-coll-" + std::to_string(::getuid()) + "-" + std::to_string(pid) + "-";
  for (const auto& e : fs::directory_iterator("/dev/shm"))
    if (e.path().filename().string().rfind(prefix, 0) == 0) ++n;
  return n;
}

}  // namespace

TEST_CASE("shared memory: sums in rank order, the same bits on every rank, across slot-sized chunks") {
  for (int size : {2, 3}) {
    CAPTURE(size);
    const fs::path dir = fresh_dir("sum" + std::to_string(size));
    // 5,000,003 floats: 20 MB, over two 8 MiB slots and a remainder not divisible by the ranks
    const size_t n = 5000003;
    auto codes = fork_ranks(size, [&](int rank) {
      return as_local_rank(rank, size, dir, shm_or_null, [&](Collective& c) {
        if (std::string(c.transport()) != "shm") return 4;
        std::vector<float> x = input_of(rank, n);
        c.allreduce_sum(x.data(), x.size());
        std::vector<float> expect = input_of(0, n);
        for (int r = 1; r < size; ++r) {
          const std::vector<float> y = input_of(r, n);
          for (size_t i = 0; i < n; ++i) expect[i] += y[i];
        }
        if (std::memcmp(x.data(), expect.data(), n * sizeof(float)) != 0) return 1;
        std::vector<double> d = {0.25 * rank, -1.0, 1e300 / size};
        c.allreduce_sum(d.data(), d.size());
        if (d[0] != 0.25 * (size * (size - 1) / 2) || d[1] != -size || std::fabs(d[2] - 1e300) > 1e286) return 2;
        // broadcast of 9 MiB + 5 bytes from the last rank: more than one slot
        std::vector<char> b(9 * 1024 * 1024 + 5, static_cast<char>(rank));
        c.broadcast(b.data(), b.size(), size - 1);
        for (char v : b)
          if (v != static_cast<char>(size - 1)) return 3;
        c.barrier();
        c.allreduce_sum(d.data(), 0);  // nothing to do, no wait
        return 0;
      });
    });
    INFO("exit codes: ", codes[0], " ", codes[1], " ", codes.back());
    CHECK(codes == zeros(size));
    fs::remove_all(dir);
  }
}

TEST_CASE("sharded: each rank's part gets allreduce's bits (of scaled values), then every part reaches every rank") {
  const size_t n = 5000003;  // parts over several pieces of a slot, one part empty (size 3)
  struct Case {
    int size;
    const char* transport;
    std::vector<size_t> bounds;
  };
  for (const Case& k : {Case{2, "shm", {0, 1234567, n}}, Case{3, "shm", {0, 3000001, 3000001, n}},
                        Case{3, "tcp", {0, 10, 2000000, n}}}) {
    CAPTURE(k.size);
    CAPTURE(k.transport);
    const fs::path dir = fresh_dir(std::string("shard-") + k.transport + std::to_string(k.size));
    const auto make = [&](const ProcessInfo& p, KVStore& kv) {
      return std::string(k.transport) == "shm" ? shm_or_null(p, kv) : make_gloo_collective(p, kv);
    };
    auto codes = fork_ranks(k.size, [&](int rank) {
      return as_local_rank(rank, k.size, dir, make, [&](Collective& c) {
        if (c.shards_updates() != (std::string(k.transport) == "shm")) return 4;
        // each rank's values times its own scale first (0.75 on rank 1: rounds), then allreduce's bits
        // (shared memory: the rank-order sum, tested above)
        const float scale = rank == 0 ? 1.0f : 0.5f + 0.25f * static_cast<float>(rank);
        std::vector<float> x = input_of(rank, n), expect = x;
        for (float& e : expect) e *= scale;
        c.allreduce_sum(expect.data(), n);
        c.reduce_scatter_sum(x.data(), k.bounds, scale);
        const size_t lo = k.bounds[static_cast<size_t>(rank)], hi = k.bounds[static_cast<size_t>(rank) + 1];
        if (std::memcmp(x.data() + lo, expect.data() + lo, (hi - lo) * sizeof(float)) != 0) return 1;
        std::vector<size_t> bytes = k.bounds;
        for (size_t& b : bytes) b *= sizeof(float);
        c.allgather(x.data(), bytes);
        if (std::memcmp(x.data(), expect.data(), n * sizeof(float)) != 0) return 2;
        // bytes at odd offsets: each rank's part of a uint16 buffer holds its rank
        std::vector<uint16_t> h(n, 0xffff);
        for (size_t i = lo; i < hi; ++i) h[i] = static_cast<uint16_t>(rank);
        for (size_t& b : bytes) b /= 2;
        c.allgather(h.data(), bytes);
        for (int r = 0; r < k.size; ++r)
          for (size_t i = k.bounds[static_cast<size_t>(r)]; i < k.bounds[static_cast<size_t>(r) + 1]; ++i)
            if (h[i] != r) return 3;
        try {
          c.reduce_scatter_sum(x.data(), {0, n});  // one offset short
          return 6;
        } catch (const DistError& e) {
          if (std::string(e.what()).find("ascending offsets") == std::string::npos) return 7;
        }
        return 0;
      });
    });
    INFO("exit codes: ", codes[0], " ", codes[1], " ", codes.back());
    CHECK(codes == zeros(k.size));
    fs::remove_all(dir);
  }
}

TEST_CASE("shared memory: the segment's name is gone once every rank is in") {
  const fs::path dir = fresh_dir("unlink");
  auto codes = fork_ranks(2, [&](int rank) {
    return as_local_rank(rank, 2, dir, shm_or_null, [&](Collective& c) {
      c.barrier();
      // rank 0 made it; it unlinks after the attach barrier, before this one returns on rank 0
      if (rank == 0 && segments_named_for(::getpid()) != 0) return 1;
      float x = 1;
      c.allreduce_sum(&x, 1);  // still works: the mapping outlives the name
      return x == 2.0f ? 0 : 2;
    });
  });
  CHECK(codes == zeros(2));
  fs::remove_all(dir);
}

TEST_CASE("shared memory: a peer that exits, or dies, is an error naming it, not a hang") {
  for (bool crash : {false, true}) {
    CAPTURE(crash);
    const fs::path dir = fresh_dir(crash ? "die" : "exit");
    auto codes = fork_ranks(2, [&](int rank) {
      return as_local_rank(rank, 2, dir, shm_or_null, [&](Collective& c) {
        c.barrier();
        if (rank == 1) {
          if (crash) ::kill(::getpid(), SIGKILL);
          return 0;  // leaves without joining the allreduce (the collective's destructor runs)
        }
        std::vector<float> f(1000, 1.0f);
        try {
          c.allreduce_sum(f.data(), f.size());
        } catch (const DistError& e) {
          const std::string want = std::string("shared-memory allreduce of 1000 float failed on rank 0: rank 1 ") +
                                   (crash ? "died" : "exited");
          if (std::string(e.what()) == want) return 0;
          std::fprintf(stderr, "unexpected: %s\n", e.what());
          return 6;
        }
        return 7;
      });
    });
    INFO("exit codes: ", codes[0], " ", codes[1]);
    CHECK(codes[0] == 0);
    CHECK(codes[1] == (crash ? 128 + SIGKILL : 0));
    fs::remove_all(dir);
  }
}

TEST_CASE("shared memory: a peer that does not come in time is an error naming the wait") {
  const fs::path dir = fresh_dir("late");
  auto codes = fork_ranks(2, [&](int rank) {
    EnvGuard env;
    env.set("RANK", std::to_string(rank)).set("WORLD_SIZE", "2").set("BERT_DIST_COLL_TIMEOUT_S", "1");
    ProcessInfo p = detect_process();
    auto kv = make_kv_store(p, dir.string());
    auto c = shm_or_null(p, *kv);
    if (!c) return 8;
    if (rank == 1) {
      ::sleep(3);  // alive, holding its mutex, not arriving
      return 0;
    }
    try {
      c->barrier();
    } catch (const DistError& e) {
      if (std::string(e.what()).find("barrier failed on rank 0: timed out after 1 s waiting for rank 1") !=
          std::string::npos)
        return 0;
      std::fprintf(stderr, "unexpected: %s\n", e.what());
      return 6;
    }
    return 7;
  });
  CHECK(codes == zeros(2));
  fs::remove_all(dir);
}

TEST_CASE("ranks that cannot share a segment all fall back to TCP (auto), or fail (shm)") {
  if (::geteuid() != 0) {
    MESSAGE("skipped: needs root (rank 1 gets its own /dev/shm in a mount namespace)");
    return;
  }
  for (const char* transport : {"auto", "shm"}) {
    CAPTURE(transport);
    const fs::path dir = fresh_dir(std::string("apart-") + transport);
    auto codes = fork_ranks(2, [&](int rank) {
      // rank 1 sees another /dev/shm, as a rank in its own container would
      if (rank == 1 && (::unshare(CLONE_NEWNS) != 0 || ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
                        ::mount("tmpfs", "/dev/shm", "tmpfs", 0, "size=1m") != 0))
        return 9;
      EnvGuard env;
      env.set("RANK", std::to_string(rank)).set("WORLD_SIZE", "2").set("BERT_DIST_TIMEOUT_S", "20");
      env.set("BERT_DIST_CPU_TRANSPORT", transport);
      ProcessInfo p = detect_process();
      auto kv = make_kv_store(p, dir.string());
      try {
        auto c = make_cpu_collective(p, *kv);
        if (rank == 0 && segments_named_for(::getpid()) != 0) return 2;  // rank 0 made one and removed it
        if (std::string(c->transport()) != "tcp") return 3;
        float x = static_cast<float>(rank + 1);
        c->allreduce_sum(&x, 1);  // through Gloo
        return std::string(transport) == "auto" && x == 3.0f ? 0 : 1;
      } catch (const DistError& e) {
        const std::string want = "BERT_DIST_CPU_TRANSPORT=shm: no shared-memory collective: rank 1: shm_open(";
        if (std::string(transport) == "shm" && std::string(e.what()).rfind(want, 0) == 0) return 0;
        std::fprintf(stderr, "unexpected: %s\n", e.what());
        return 6;
      }
    });
    INFO("exit codes: ", codes[0], " ", codes[1]);
    CHECK(codes == zeros(2));
    fs::remove_all(dir);
  }
}

TEST_CASE("BERT_DIST_CPU_TRANSPORT: a bad value is an error naming it") {
  EnvGuard env;
  env.set("RANK", "0").set("WORLD_SIZE", "2").set("BERT_DIST_CPU_TRANSPORT", "rdma");
  ProcessInfo p = detect_process();
  const fs::path dir = fresh_dir("knob");
  auto kv = make_kv_store(p, dir.string());
  CHECK_THROWS_WITH_AS(make_cpu_collective(p, *kv),
                       "environment variable BERT_DIST_CPU_TRANSPORT='rdma' must be auto, shm or tcp", DistError);
  fs::remove_all(dir);
}

TEST_CASE("two nodes of two ranks: Gloo by default; with shm, shared memory within each, TCP between their local ranks 0, updates sharded per node") {
  const fs::path dir = fresh_dir("nodes");
  const size_t n = 5000003;
  for (const char* transport : {"auto", "shm"}) {
    CAPTURE(transport);
    fs::remove_all(dir);
    auto codes = fork_ranks(4, [&](int rank) {
      EnvGuard env;
      env.set("BERT_DIST_CPU_TRANSPORT", transport);
      env.set("RANK", std::to_string(rank)).set("WORLD_SIZE", "4").set("LOCAL_RANK", std::to_string(rank % 2));
      env.set("LOCAL_WORLD_SIZE", "2").set("NODE_RANK", std::to_string(rank / 2)).set("BERT_GLOO_HOST", "127.0.0.1");
      env.set("BERT_DIST_TIMEOUT_S", "20").set("BERT_DIST_COLL_TIMEOUT_S", "20");
      ProcessInfo p = detect_process();
      if (p.num_nodes != 2 || p.node != rank / 2) return 9;
      auto kv = make_kv_store(p, dir.string());
      auto c = make_cpu_collective(p, *kv);
      if (std::string(c->transport()) != (std::string(transport) == "shm" ? "shm+tcp" : "tcp")) return 4;
      std::vector<float> x = input_of(rank, n);
      c->allreduce_sum(x.data(), x.size());
      // shm+tcp: each node's ranks in local order, then the two nodes' sums (Gloo alone: its own order)
      if (std::string(transport) == "auto") {
        c->barrier();
        return 0;
      }
      std::vector<float> node0 = input_of(0, n), node1 = input_of(2, n);
      const std::vector<float> x1 = input_of(1, n), x3 = input_of(3, n);
      for (size_t i = 0; i < n; ++i) node0[i] = (node0[i] + x1[i]) + (node1[i] + x3[i]);
      if (std::memcmp(x.data(), node0.data(), n * sizeof(float)) != 0) return 1;
      std::vector<double> d = {1.0 * rank, 0.5};
      c->allreduce_sum(d.data(), d.size());
      if (d[0] != 6.0 || d[1] != 2.0) return 2;
      for (int root : {3, 1, 0}) {  // a non-leader of the second node, of the first, a leader
        std::vector<char> b(9 * 1024 * 1024 + 5, static_cast<char>(rank));
        c->broadcast(b.data(), b.size(), root);
        for (char v : b)
          if (v != static_cast<char>(root)) return 3;
      }
      // Sharded updates, a copy per node split between its two ranks: each rank's part gets the job's
      // sum (allreduce's bits), then the node's two parts reach both of its ranks.
      const Collective::UpdateGroup g = c->update_group();
      if (!c->shards_updates() || g.parts != 2 || g.part != rank % 2 || g.copy != rank / 2 || g.copies != 2) return 10;
      const std::vector<size_t> bounds = {0, 1234567, n};
      std::vector<float> y = input_of(rank, n);
      for (float& e : y) e *= 0.75f;
      std::vector<float> z = input_of(rank, n);
      c->allreduce_sum(y.data(), n);
      c->reduce_scatter_sum(z.data(), bounds, 0.75f);
      const size_t lo = bounds[static_cast<size_t>(g.part)], hi = bounds[static_cast<size_t>(g.part) + 1];
      if (std::memcmp(z.data() + lo, y.data() + lo, (hi - lo) * sizeof(float)) != 0) return 11;
      std::vector<size_t> bytes = bounds;
      for (size_t& b : bytes) b *= sizeof(float);
      for (size_t i = 0; i < n; ++i)  // the rest is unspecified: only the gather may fill it
        if (i < lo || i >= hi) z[i] = -1.0f;
      c->allgather(z.data(), bytes);
      if (std::memcmp(z.data(), y.data(), n * sizeof(float)) != 0) return 12;
      try {
        c->allgather(z.data(), {0, n, n, n, n});  // the job's 4 ranks: the group has 2
        return 13;
      } catch (const DistError&) {
      }
      c->barrier();
      return 0;
    });
    INFO("exit codes: ", codes[0], " ", codes[1], " ", codes[2], " ", codes[3]);
    CHECK(codes == zeros(4));
  }
  fs::remove_all(dir);
}
