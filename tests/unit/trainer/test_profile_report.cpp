// trainer_throughput --profile's arithmetic (bench/trainer_throughput/profile_report.h) without a GPU:
// floors from the measured peaks, shares, the table's order (largest gap to the floor first) and the
// consistency check that rejects a profile whose op times do not add up.
#include <doctest/doctest.h>

#include <string>

#include "bench/trainer_throughput/profile_report.h"

namespace bert::bench {
namespace {

size_t at(model::StepOp op) { return static_cast<size_t>(op); }

ProfileInput sample() {
  ProfileInput p;
  p.steps = 1;
  p.gemm_flop_per_s = 1e15;   // 1000 TFLOP/s
  p.copy_bytes_per_s = 2e12;  // 2 TB/s
  for (size_t i = 0; i < model::kStepOps; ++i) p.spans[i] = 1;
  p.costs[at(model::StepOp::QkvFwd)] = {3e12, 1e9};        // floor 3 ms (FLOPs)
  p.ms[at(model::StepOp::QkvFwd)] = 4;
  p.costs[at(model::StepOp::Lamb)] = {0, 10e9};            // floor 5 ms (bytes)
  p.ms[at(model::StepOp::Lamb)] = 9;
  p.costs[at(model::StepOp::AttentionFwd)] = {1e12, 1e9};  // floor 1 ms
  p.ms[at(model::StepOp::AttentionFwd)] = 6;
  p.gaps_ms = 1;
  p.step_ms = 20;
  return p;
}

}  // namespace

TEST_CASE("profile floors, shares and the order of the table") {
  const ProfileInput p = sample();
  CHECK(profile_inconsistency(p).empty());
  const nlohmann::json j = profile_json(p);
  CHECK(j["floor_ms"].get<double>() == doctest::Approx(9.0));
  CHECK(j["gemm_tflops_measured"].get<double>() == doctest::Approx(1000.0));
  const auto& ops = j["ops"];
  REQUIRE(ops.size() == model::kStepOps);
  const auto& qkv = ops[at(model::StepOp::QkvFwd)];
  CHECK(qkv["op"] == "gemm.qkv.fwd");
  CHECK(qkv["floor_ms"].get<double>() == doctest::Approx(3.0));
  CHECK(qkv["over_floor_ms"].get<double>() == doctest::Approx(1.0));
  CHECK(qkv["share"].get<double>() == doctest::Approx(0.2));
  CHECK(ops[at(model::StepOp::Lamb)]["floor_ms"].get<double>() == doctest::Approx(5.0));
  // attention (5 ms over its floor) before LAMB (4) before the QKV GEMM (1)
  const std::string t = profile_table(p);
  const auto a = t.find("attention.fwd"), l = t.find("lamb"), q = t.find("gemm.qkv.fwd");
  REQUIRE(a != std::string::npos);
  REQUIRE(l != std::string::npos);
  REQUIRE(q != std::string::npos);
  CHECK(a < l);
  CHECK(l < q);
  CHECK(t.find("launch gaps") != std::string::npos);
}

TEST_CASE("a profile whose times do not add up, or that missed an op with work, is rejected") {
  ProfileInput p = sample();
  p.step_ms = 25;  // 19 ms of ops and 1 of gaps
  CHECK(profile_inconsistency(p).find("!= step") != std::string::npos);
  p = sample();
  p.spans[at(model::StepOp::Lamb)] = 0;
  CHECK(profile_inconsistency(p).find("lamb") != std::string::npos);
  p = sample();
  p.steps = 0;
  CHECK(!profile_inconsistency(p).empty());
}

}  // namespace bert::bench
