// "3 GPUs", "1 GPU", "1 entry": a count and its noun for messages.
#pragma once
#include <cstddef>
#include <string>

namespace bert::binding {

inline std::string count_of(size_t n, std::string what) {
  if (n == 1 && what.size() > 3 && what.ends_with("ies")) what.replace(what.size() - 3, 3, "y");
  else if (n == 1 && what.ends_with("s")) what.pop_back();
  return std::to_string(n) + " " + what;
}

}  // namespace bert::binding
