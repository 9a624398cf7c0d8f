#pragma once
#include <string>
#include <vector>

namespace bert::harness {

size_t edit_distance(const std::string& a, const std::string& b);
// The closest candidate if it is close enough to be a plausible typo, else "".
std::string closest(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace bert::harness
