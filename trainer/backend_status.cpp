#include "trainer/backend_status.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <vector>

namespace bert::trainer {

extern const char* const kCudaVerified;  // generated from trainer/cuda/verified.json (cuda_verified.cpp.in)
extern const char* const kCudaSourceSince;

namespace {

std::string joined(const std::vector<std::string>& items) { return fmt::format("{}", fmt::join(items, ", ")); }

}  // namespace

BackendStatus cuda_status_of_run(const std::string& run_json, Precision precision, const std::string& source_since) {
  const nlohmann::json run = nlohmann::json::parse(run_json);
  for (const char* key : {"commit", "date", "device", "driver", "tests"})
    if (!run.contains(key)) throw std::runtime_error(std::string("GPU run entry without '") + key + "'");
  std::vector<std::string> failed, unfinished, not_run;
  size_t passed = 0;
  bool broken = false;  // a test of this precision failed or did not finish
  for (const auto& t : run.at("tests")) {
    const std::string name = t.at("name").get<std::string>(), status = t.at("status").get<std::string>();
    const bool ours = precision == Precision::fp8 || name.find("fp8") == std::string::npos;
    if (status == "PASS") ++passed;
    else if (status == "FAIL") failed.push_back(name);
    else if (status == "TIMEOUT") unfinished.push_back(name);
    else not_run.push_back(name);  // SKIP, NOT RUN
    broken = broken || (ours && (status == "FAIL" || status == "TIMEOUT"));
  }
  const size_t total = run.at("tests").size();
  std::string s = "last device run: " + run.at("device").get<std::string>() + ", driver " +
                  run.at("driver").get<std::string>() + ", commit " + run.at("commit").get<std::string>() + ", " +
                  run.at("date").get<std::string>() + ": " + std::to_string(passed) + " of " + std::to_string(total) +
                  " GPU tests passed";
  if (!failed.empty()) s += "; failed: " + joined(failed);
  if (!unfinished.empty()) s += "; did not finish: " + joined(unfinished);
  if (!not_run.empty()) s += "; skipped or not run: " + joined(not_run);
  if (run.contains("not_verified") && !run.at("not_verified").empty())
    s += "; never run on a device: " + joined(run.at("not_verified").get<std::vector<std::string>>());
  s += " (bench/results/gpu.json)";
  const std::string commit = run.at("commit").get<std::string>();
  if (source_since == "changed")
    return {false, "trainer/cuda has changed since commit " + commit + ", no device run of this code; " + s};
  if (source_since != "same")
    s += "; whether trainer/cuda changed since commit " + commit + " is unknown (no git history here)";
  return {total > 0 && !broken, s};
}

BackendStatus backend_status(Backend backend, Precision precision) {
  switch (backend) {
    case Backend::Cpu:
      return {true, "trains tiny BERT to its target in CI (tests/integration/trainer/converge.sh, slurm_sbatch_*)"};
    case Backend::Cuda:
      return cuda_status_of_run(kCudaVerified, precision, kCudaSourceSince);
  }
  return {false, "unknown backend"};
}

}  // namespace bert::trainer
