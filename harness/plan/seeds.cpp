#include "harness/plan/seeds.h"

#include <random>
#include <stdexcept>

namespace bert::harness {

std::string SeedPolicy::word() const {
  const std::string kind_word = enum_name(kind, kSeedKindNames);
  return kind == SeedKind::Random ? kind_word : kind_word + ":" + std::to_string(value);
}

SeedPolicy parse_seed_policy(const std::string& word) {
  const size_t colon = word.find(':');
  const std::optional<SeedKind> kind = parse_enum(std::string_view(word).substr(0, colon), kSeedKindNames);
  if (!kind || (*kind == SeedKind::Random) != (colon == std::string::npos))
    throw std::invalid_argument("'" + word + "' is not random, fixed:<n> or sequence:<base>");
  SeedPolicy p{*kind, 0};
  if (p.kind == SeedKind::Random) return p;
  const std::string digits = word.substr(colon + 1);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 19)
    throw std::invalid_argument("'" + word + "': expected " + word.substr(0, colon + 1) + "<non-negative integer>");
  p.value = std::stoull(digits);
  return p;
}

std::vector<uint64_t> resolve_seeds(const SeedPolicy& policy, int nexp, const std::function<uint64_t()>& random) {
  std::vector<uint64_t> seeds;
  switch (policy.kind) {
    case SeedKind::Random: {
      std::random_device rd;
      while (static_cast<int>(seeds.size()) < nexp) {
        uint64_t s = random ? random() : static_cast<uint64_t>(rd());
        bool dup = false;
        for (uint64_t x : seeds) dup = dup || x == s;
        if (!dup) seeds.push_back(s);  // the closed-division seed checker rejects repeated seeds
      }
      break;
    }
    case SeedKind::Fixed: seeds.assign(static_cast<size_t>(nexp), policy.value); break;
    case SeedKind::Sequence:
      for (int i = 0; i < nexp; ++i) seeds.push_back(policy.value + static_cast<uint64_t>(i));
      break;
  }
  return seeds;
}

}  // namespace bert::harness
