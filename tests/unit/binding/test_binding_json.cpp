#include <doctest/doctest.h>

#include "binding/binding_json.h"
#include "fixtures.h"

using namespace bert::binding;
using namespace bert::binding::test;

TEST_CASE("RankBinding JSON round trip and key names") {
  RankBinding b{.local_rank = 3, .gpu = 3, .gpu_busid = "0000:4e:00.0", .numa_node = 1, .cpus = "24-31,152-159", .mems = "1", .nics = {}, .nic_locality = ""};
  ojson j = b;
  CHECK(j.dump() ==
        R"({"local_rank":3,"gpu":3,"gpu_busid":"0000:4e:00.0","numa_node":1,"cpus":"24-31,152-159","mems":"1","nics":[],"nic_locality":""})");
  RankBinding back = j.get<RankBinding>();
  CHECK(back.local_rank == 3);
  CHECK(back.gpu_busid == b.gpu_busid);
  CHECK(back.cpus == b.cpus);
  CHECK(back.mems == b.mems);
  CHECK(back.numa_node == 1);
}

TEST_CASE("NodeTopology JSON round trip (real DGX A100 file)") {
  NodeTopology t = load_xml(shipped("dgxa100.xml"), "0-1");
  ojson j = t;
  NodeTopology back = j.get<NodeTopology>();
  CHECK(ojson(back) == j);
  CHECK(back.gpus.size() == 8);
  CHECK(back.gpus[0].osdevs == t.gpus[0].osdevs);
  CHECK(back.numa[3].cores == t.numa[3].cores);
  CHECK(back.allowed_cpus == "2-255");
  // and the planner gives the same answer from the JSON copy
  CHECK(cpus_of(plan_node(back, policy(CpuPolicy::Exclusive), 8)) ==
        cpus_of(plan_node(t, policy(CpuPolicy::Exclusive), 8)));
}

TEST_CASE("JSON missing a required key throws") {
  ojson j = ojson::parse(R"({"local_rank":0,"gpu":0})");
  CHECK_THROWS_AS(j.get<RankBinding>(), ojson::exception);
}

TEST_CASE("policy names") {
  CpuPolicy c{};
  CHECK(parse_cpu_policy("exclusive-nosmt", c));
  CHECK(c == CpuPolicy::ExclusiveNoSmt);
  CHECK_FALSE(parse_cpu_policy("exclusive,nosmt", c));
  CHECK(to_string(CpuPolicy::Map) == "map");
  MemPolicy m{};
  CHECK(parse_mem_policy("none", m));
  CHECK(m == MemPolicy::None);
  RankUnit u{};
  CHECK(parse_rank_unit("numa", u));
  CHECK(u == RankUnit::Numa);
  CHECK(to_string(RankUnit::Socket) == "socket");
}
