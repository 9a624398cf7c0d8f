// The CUDA backend's status line from a device run of bench/results/gpu.json: what passed, what failed
// or did not finish, what never ran; verified only when nothing failed.
#include <doctest/doctest.h>

#include <stdexcept>

#include "trainer/backend_status.h"

using bert::trainer::cuda_status_of_run;
using bert::trainer::Precision;

namespace {

const char* kRun = R"json({"commit": "abc1234", "date": "2026-11-27", "device": "NVIDIA H100 80GB HBM3", "driver": "580.1",
  "tests": [{"name": "cuda_gemm", "status": "PASS"}, {"name": "cuda_lamb", "status": "FAIL"},
            {"name": "cuda_convergence", "status": "TIMEOUT"}, {"name": "trainer_cuda_two_ranks", "status": "SKIP"}],
  "not_verified": ["two GPUs (NCCL)", "multi-node"]})json";

}  // namespace

TEST_CASE("a device run with failures: not verified, each outcome named") {
  const auto s = cuda_status_of_run(kRun, Precision::bf16);
  CHECK_FALSE(s.verified);
  CHECK(s.evidence ==
        "last device run: NVIDIA H100 80GB HBM3, driver 580.1, commit abc1234, 2026-11-27: 1 of 4 GPU tests passed; "
        "failed: cuda_lamb; did not finish: cuda_convergence; skipped or not run: trainer_cuda_two_ranks; never run on a "
        "device: two GPUs (NCCL), multi-node (bench/results/gpu.json)");
}

TEST_CASE("a device run where every test passed or was skipped: verified") {
  const auto s = cuda_status_of_run(R"json({"commit": "c", "date": "d", "device": "GPU", "driver": "1",
    "tests": [{"name": "a", "status": "PASS"}, {"name": "b", "status": "SKIP"}]})json", Precision::bf16);
  CHECK(s.verified);
  CHECK(s.evidence == "last device run: GPU, driver 1, commit c, d: 1 of 2 GPU tests passed; skipped or not run: b "
                      "(bench/results/gpu.json)");
  CHECK_FALSE(cuda_status_of_run(R"json({"commit": "c", "date": "d", "device": "GPU", "driver": "1", "tests": []})json", Precision::bf16).verified);
}

TEST_CASE("an entry without its fields is an error naming the field") {
  CHECK_THROWS_WITH_AS(cuda_status_of_run(R"json({"commit": "c", "date": "d", "device": "GPU", "tests": []})json", Precision::bf16),
                       "GPU run entry without 'driver'", std::runtime_error);
}

TEST_CASE("the committed results file's newest run gives the cuda status") {
  const auto s = bert::trainer::backend_status(bert::trainer::Backend::Cuda, Precision::bf16);
  CHECK(s.evidence.find("last device run: ") != std::string::npos);
  CHECK(bert::trainer::backend_status(bert::trainer::Backend::Cpu, Precision::fp32).verified);
}

TEST_CASE("a failing FP8 test leaves the bf16 path verified, not the fp8 one") {
  const char* run = R"json({"commit": "c", "date": "d", "device": "GPU", "driver": "1",
    "tests": [{"name": "cuda_model", "status": "PASS"}, {"name": "cuda_fp8_gemm", "status": "FAIL"}]})json";
  CHECK(cuda_status_of_run(run, Precision::bf16).verified);
  CHECK_FALSE(cuda_status_of_run(run, Precision::fp8).verified);
  CHECK(cuda_status_of_run(run, Precision::bf16).evidence.find("failed: cuda_fp8_gemm") != std::string::npos);
}

TEST_CASE("CUDA code changed since the verifying run is not verified; an unknown history says so") {
  const char* run = R"json({"commit": "abc1234", "date": "d", "device": "GPU", "driver": "1",
    "tests": [{"name": "cuda_model", "status": "PASS"}]})json";
  CHECK(cuda_status_of_run(run, Precision::bf16, "same").verified);
  const auto changed = cuda_status_of_run(run, Precision::bf16, "changed");
  CHECK_FALSE(changed.verified);
  CHECK(changed.evidence.rfind("trainer/cuda has changed since commit abc1234, no device run of this code; last device run: ", 0) == 0);
  const auto unknown = cuda_status_of_run(run, Precision::bf16, "unknown");
  CHECK(unknown.verified);
  CHECK(unknown.evidence.find("whether trainer/cuda changed since commit abc1234 is unknown") != std::string::npos);
}
