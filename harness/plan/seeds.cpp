#include <random>
#include <stdexcept>

#include "harness/plan/seeds.h"

namespace bert::harness {

std::vector<uint64_t> resolve_seeds(const std::string& policy, int nexp, const std::function<uint64_t()>& random) {
  auto number_after = [&](const std::string& prefix) {
    std::string digits = policy.substr(prefix.size());
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 19)
      throw std::invalid_argument("'" + policy + "': expected " + prefix + "<non-negative integer>");
    return std::stoull(digits);
  };
  std::vector<uint64_t> seeds;
  if (policy == "random") {
    std::random_device rd;
    while (static_cast<int>(seeds.size()) < nexp) {
      uint64_t s = random ? random() : static_cast<uint64_t>(rd());
      bool dup = false;
      for (uint64_t x : seeds) dup = dup || x == s;
      if (!dup) seeds.push_back(s);  // the closed-division seed checker rejects repeated seeds
    }
  } else if (policy.rfind("fixed:", 0) == 0) {
    seeds.assign(static_cast<size_t>(nexp), number_after("fixed:"));
  } else if (policy.rfind("sequence:", 0) == 0) {
    uint64_t base = number_after("sequence:");
    for (int i = 0; i < nexp; ++i) seeds.push_back(base + static_cast<uint64_t>(i));
  } else {
    throw std::invalid_argument("'" + policy + "' is not random, fixed:<n> or sequence:<base>");
  }
  return seeds;
}

}  // namespace bert::harness
