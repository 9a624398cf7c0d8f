// The seeds of a set: experiment.seed_policy as a type, resolved up front and recorded in the Plan.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/enum_names.h"

namespace bert::harness {

// experiment.seed_policy: "random", "fixed:<n>" (every run n) or "sequence:<base>" (base, base+1, ...).
enum class SeedKind { Random, Fixed, Sequence };
inline constexpr EnumNames<SeedKind, 3> kSeedKindNames{
    {{SeedKind::Random, "random"}, {SeedKind::Fixed, "fixed"}, {SeedKind::Sequence, "sequence"}}};

struct SeedPolicy {
  SeedKind kind = SeedKind::Random;
  uint64_t value = 0;        // fixed: the seed; sequence: the first one
  std::string word() const;  // as written: "random", "fixed:7", "sequence:40"
};

// The policy of `word`; throws std::invalid_argument naming what is wrong.
SeedPolicy parse_seed_policy(const std::string& word);

// One seed per experiment; random ones are distinct (the closed-division seed checker rejects repeats).
std::vector<uint64_t> resolve_seeds(const SeedPolicy& policy, int nexp, const std::function<uint64_t()>& random);

}  // namespace bert::harness
