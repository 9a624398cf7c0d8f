// The file rendezvous store with real processes (fork), and its timeout message.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "tests/unit/comm/fork_ranks.h"
#include "trainer/comm/file_kv.h"

using namespace bert::dist;
using bert::dist::test::fork_ranks;
namespace fs = std::filesystem;
using std::chrono::milliseconds;

namespace {
fs::path fresh_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("bert-dist-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}
}  // namespace

TEST_CASE("three processes exchange values through the file store, twice") {
  fs::path dir = fresh_dir("kv3");
  auto codes = fork_ranks(3, [&](int rank) {
    FileKVStore kv(dir, rank, 3, milliseconds(20000));
    // binary value with NUL and a key with characters that need escaping
    kv.put("id/x y", std::string("\0r", 2) + std::to_string(rank));
    kv.fence();
    for (int r = 0; r < 3; ++r)
      if (kv.get("id/x y", r) != std::string("\0r", 2) + std::to_string(r)) return 1;
    kv.put("round2", std::to_string(rank * 10));  // same key again after a second fence
    kv.fence();
    for (int r = 0; r < 3; ++r)
      if (kv.get("round2", r) != std::to_string(r * 10)) return 1;
    return 0;
  });
  CHECK(codes == std::vector<int>{0, 0, 0});
  fs::remove_all(dir);
}

TEST_CASE("get blocks until the value appears") {
  fs::path dir = fresh_dir("late");
  auto codes = fork_ranks(2, [&](int rank) {
    FileKVStore kv(dir, rank, 2, milliseconds(20000));
    if (rank == 1) {
      ::usleep(200 * 1000);
      kv.put("late", "here");
      return 0;
    }
    return kv.get("late", 1) == "here" ? 0 : 1;
  });
  CHECK(codes == std::vector<int>{0, 0});
  fs::remove_all(dir);
}

TEST_CASE("a rank that never arrives: the error names it, the key and the directory") {
  fs::path dir = fresh_dir("missing");
  FileKVStore kv(dir, 0, 3, milliseconds(200));
  kv.put("addr", "x");
  CHECK_THROWS_WITH_AS(kv.get("addr", 2),
                       doctest::Contains("waiting for key 'addr' from rank 2"), DistError);
  CHECK_THROWS_WITH_AS(kv.fence(), doctest::Contains("rank(s) 1, 2 never arrived"), DistError);
  CHECK_THROWS_WITH_AS(kv.get("addr", 3), doctest::Contains("outside [0, 3)"), DistError);
  fs::remove_all(dir);
}

TEST_CASE("an unusable rendezvous directory is a clear error") {
  CHECK_THROWS_WITH_AS(FileKVStore("/proc/no/such/dir", 0, 2, milliseconds(100)),
                       doctest::Contains("cannot create rendezvous directory /proc/no/such/dir"), DistError);
}
