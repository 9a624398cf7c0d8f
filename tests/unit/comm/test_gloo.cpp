// Gloo collectives between real processes (fork) over the file rendezvous (BERT_DIST_CPU_TRANSPORT=tcp:
// on one node the default would be shared memory, test_shm_collective.cpp).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "tests/unit/comm/env_guard.h"
#include "tests/unit/comm/fork_ranks.h"
#include "trainer/comm/comm.h"
#include "trainer/comm/gloo_mesh.h"

using namespace bert::dist;
using bert::dist::test::EnvGuard;
using bert::dist::test::fork_ranks;
namespace fs = std::filesystem;

namespace {

// Child body: set up as the harness local launcher does, then run `body` on the collective.
template <class Body>
int as_local_rank(int rank, int size, const fs::path& dir, Body body) {
  EnvGuard env;
  env.set("RANK", std::to_string(rank)).set("WORLD_SIZE", std::to_string(size)).set("BERT_DIST_TIMEOUT_S", "20");
  env.set("BERT_DIST_COLL_TIMEOUT_S", "20").set("BERT_DIST_CPU_TRANSPORT", "tcp");
  ProcessInfo p = detect_process();
  auto kv = make_kv_store(p, dir.string());
  auto coll = make_cpu_collective(p, *kv);
  if (coll->rank() != rank || coll->size() != size) return 5;
  if (std::string(coll->transport()) != "tcp") return 8;
  return body(*coll);
}

std::vector<int> all_zero(int n) { return std::vector<int>(static_cast<size_t>(n), 0); }

}  // namespace

TEST_CASE("allreduce, broadcast and barrier with 2 and 3 processes") {
  for (int size : {2, 3}) {
    CAPTURE(size);
    fs::path dir = fs::temp_directory_path() / ("bert-gloo-test-" + std::to_string(::getpid()) + "-" + std::to_string(size));
    fs::remove_all(dir);
    auto codes = fork_ranks(size, [&](int rank) {
      return as_local_rank(rank, size, dir, [&](Collective& c) {
        // float: values whose sums are exact; long enough to span several ring segments
        std::vector<float> f(100003);
        for (size_t i = 0; i < f.size(); ++i) f[i] = static_cast<float>((i % 97) * (rank + 1));
        c.allreduce_sum(f.data(), f.size());
        const float factor = static_cast<float>(size * (size + 1) / 2);
        for (size_t i = 0; i < f.size(); ++i)
          if (f[i] != static_cast<float>(i % 97) * factor) return 1;
        std::vector<double> d = {0.25 * rank, -1.0, 1e300 / size};
        c.allreduce_sum(d.data(), d.size());
        if (d[0] != 0.25 * (size * (size - 1) / 2) || d[1] != -size || std::fabs(d[2] - 1e300) > 1e286) return 2;
        int value[4] = {rank, rank, rank, rank};
        c.broadcast(value, sizeof value, size - 1);
        for (int v : value)
          if (v != size - 1) return 3;
        c.barrier();
        return 0;
      });
    });
    INFO("exit codes: ", codes[0], " ", codes[1], " ", codes.back());
    CHECK(codes == all_zero(size));
    fs::remove_all(dir);
  }
}

TEST_CASE("a rank that exits makes the others fail with a DistError, not hang") {
  fs::path dir = fs::temp_directory_path() / ("bert-gloo-exit-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto codes = fork_ranks(2, [&](int rank) {
    return as_local_rank(rank, 2, dir, [&](Collective& c) {
      c.barrier();                // every connection is up
      if (rank == 1) ::_exit(0);  // leaves without joining the allreduce
      std::vector<float> f(1000, 1.0f);
      try {
        c.allreduce_sum(f.data(), f.size());
      } catch (const DistError& e) {
        if (std::string(e.what()).find("Gloo allreduce of 1000 float failed on rank 0") != std::string::npos) return 0;
        std::fprintf(stderr, "unexpected: %s\n", e.what());
        return 6;
      }
      return 7;
    });
  });
  INFO("exit codes: ", codes[0], " ", codes[1]);
  CHECK(codes == std::vector<int>{0, 0});
  fs::remove_all(dir);
}

TEST_CASE("an interface that does not exist is named in the error") {
  EnvGuard env;
  env.set("RANK", "0").set("WORLD_SIZE", "2").set("BERT_GLOO_IFACE", "nosuch0").set("BERT_DIST_CPU_TRANSPORT", "tcp");
  ProcessInfo p = detect_process();
  fs::path dir = fs::temp_directory_path() / ("bert-gloo-iface-" + std::to_string(::getpid()));
  auto kv = make_kv_store(p, dir.string());
  CHECK_THROWS_WITH_AS(make_cpu_collective(p, *kv), doctest::Contains("on interface nosuch0 failed"), DistError);
  env.set("BERT_GLOO_IFACE", std::nullopt);
  fs::remove_all(dir);
}

TEST_CASE("pair address lists: one entry per rank, checked on the way out") {
  std::vector<std::vector<char>> addrs = {{}, {'a', '\0', 'b'}, {'c'}};
  std::string packed = pack_addresses(addrs);
  CHECK(address_for(packed, 1, 0) == addrs[1]);
  CHECK(address_for(packed, 2, 0) == addrs[2]);
  CHECK_THROWS_WITH_AS(address_for(packed, 3, 0), doctest::Contains("no entry for rank 3"), DistError);
  CHECK_THROWS_WITH_AS(address_for(packed.substr(0, 9), 1, 4), doctest::Contains("from rank 4 is truncated"), DistError);
}
