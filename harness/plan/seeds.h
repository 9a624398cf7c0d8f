// The seeds of a set: resolved up front from experiment.seed_policy and recorded in the Plan.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace bert::harness {

// Resolved seeds for `policy` ("random" | "fixed:<n>" | "sequence:<base>"); random ones are distinct
// (the closed-division seed checker rejects repeats). Throws std::invalid_argument.
std::vector<uint64_t> resolve_seeds(const std::string& policy, int nexp, const std::function<uint64_t()>& random);

}  // namespace bert::harness
