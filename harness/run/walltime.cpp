#include "harness/run/walltime.h"

#include <cctype>
#include <stdexcept>
#include <vector>

namespace bert::harness {

double parse_walltime_seconds(const std::string& text) {
  if (text.empty()) return 0;
  std::vector<long> parts{0};
  for (char c : text) {
    if (c == ':') {
      parts.push_back(0);
    } else if (std::isdigit(static_cast<unsigned char>(c)) && parts.back() < 100000000) {
      parts.back() = parts.back() * 10 + (c - '0');
    } else {
      throw std::invalid_argument("walltime '" + text + "' is not minutes or [hh:]mm:ss");
    }
  }
  if (parts.size() == 1) return double(parts[0]) * 60;
  if (parts.size() > 3 || parts.back() >= 60 || (parts.size() == 3 && parts[1] >= 60))
    throw std::invalid_argument("walltime '" + text + "' is not minutes or [hh:]mm:ss");
  double s = 0;
  for (long p : parts) s = s * 60 + double(p);
  return s;
}

}  // namespace bert::harness
