#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "harness/run/cache_clear.h"

using namespace bert::harness;

namespace {
nlohmann::json payload(const std::string& line) {
  REQUIRE(line.rfind(":::MLLOG ", 0) == 0);
  return nlohmann::json::parse(line.substr(9));
}
Plan two_nodes(const std::string& cmd, CachePolicy policy) {
  Plan p;
  p.nodes.resize(2);
  p.nodes[0].hostname = "n0";
  p.nodes[1].hostname = "n1";
  if (!cmd.empty()) p.cache_clear.argv = {"sh", "-c", cmd};
  p.experiment.cache_clear = policy;
  return p;
}
}  // namespace

TEST_CASE("the cache_clear line carries the outcome and the node") {
  auto j = payload(cache_clear_line(123, "n7", false, "denied"));
  CHECK(j["key"] == "cache_clear");
  CHECK(j["value"] == false);
  CHECK(j["time_ms"] == 123);
  CHECK(j["metadata"]["node"] == "n7");
  CHECK(j["metadata"]["reason"] == "denied");
  CHECK(j["metadata"].contains("file"));
  CHECK(j["metadata"].contains("lineno"));
  CHECK_FALSE(payload(cache_clear_line(1, "n", true, ""))["metadata"].contains("reason"));
}

TEST_CASE("cleared everywhere: one true line per node") {
  auto o = clear_caches(two_nodes("true", CachePolicy::Required));
  CHECK(o.cleared == std::vector<bool>{true, true});
  REQUIRE(o.mllog.size() == 2);
  CHECK(payload(o.mllog[1])["metadata"]["node"] == "n1");
  CHECK(payload(o.mllog[0])["value"] == true);
  CHECK_FALSE(o.fails_experiment);
}

TEST_CASE("refused: required fails the experiment, best-effort does not; the reason is the command's") {
  auto o = clear_caches(two_nodes("echo 'Operation not permitted' >&2; exit 1", CachePolicy::Required));
  CHECK(o.cleared == std::vector<bool>{false, false});
  CHECK(o.fails_experiment);
  CHECK(o.message.find("Operation not permitted") != std::string::npos);
  CHECK(payload(o.mllog[0])["value"] == false);
  o = clear_caches(two_nodes("exit 1", CachePolicy::BestEffort));
  CHECK_FALSE(o.fails_experiment);
  CHECK(o.message.rfind("warning:", 0) == 0);
}

TEST_CASE("off: nothing runs, the lines say false") {
  auto o = clear_caches(two_nodes("exit 1", CachePolicy::Off));
  CHECK_FALSE(o.fails_experiment);
  CHECK(o.cleared == std::vector<bool>{false, false});
  CHECK(payload(o.mllog[0])["metadata"]["reason"] == "cache clearing is off in the system's policy");
}

TEST_CASE("a command that cannot start is a failed clear, not a crash") {
  Plan p = two_nodes("", CachePolicy::Required);
  p.cache_clear.argv = {"/no/such/dropcache"};
  auto o = clear_caches(p);
  CHECK(o.fails_experiment);
  CHECK(o.reason.find("cannot start /no/such/dropcache") != std::string::npos);
}

TEST_CASE("per node: each node's own answer in the tagged output; the one that refused is named") {
  Plan p = two_nodes("echo '0: cache_clear_ok'; echo '1: sysctl: permission denied' >&2; echo '1: cache_clear_failed'; exit 1",
                     CachePolicy::Required);
  p.launcher = "srun";  // srun -l: "<task>: " tags
  auto o = clear_caches(p);
  CHECK(o.cleared == std::vector<bool>{true, false});
  CHECK(o.fails_experiment);
  CHECK(payload(o.mllog[0])["value"] == true);
  CHECK(payload(o.mllog[1])["value"] == false);
  CHECK(payload(o.mllog[1])["metadata"]["reason"] == "sysctl: permission denied");  // its tag dropped
  CHECK(o.message.find("not cleared on n1: sysctl: permission denied") != std::string::npos);
  // a node that never answers is not cleared either
  p.cache_clear.argv = {"sh", "-c", "echo '0: cache_clear_ok'; exit 1"};
  o = clear_caches(p);
  CHECK(o.cleared == std::vector<bool>{true, false});
  CHECK(payload(o.mllog[1])["metadata"]["reason"].get<std::string>().rfind("it did not answer", 0) == 0);
}
