#include "harness/launch/cpu_mask.h"

#include <charconv>
#include <vector>

#include "common/user_error.h"

namespace bert::harness {
namespace {

int parse_index(const std::string& s, const std::string& list, const std::string& field) {
  int v = -1;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p != s.data() + s.size() || v < 0 || v > 65535)
    throw UserError(field, "'" + list + "' is not a CPU list (N or N-M items separated by commas)");
  return v;
}

}  // namespace

std::string list_to_hex_mask(const std::string& list, const std::string& field) {
  std::vector<bool> bits;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t dash = item.find('-');
    int lo = parse_index(item.substr(0, dash), list, field);
    int hi = dash == std::string::npos ? lo : parse_index(item.substr(dash + 1), list, field);
    if (hi < lo) throw UserError(field, "'" + list + "' has a descending range");
    if (bits.size() <= size_t(hi)) bits.resize(size_t(hi) + 1);
    for (int i = lo; i <= hi; ++i) bits[size_t(i)] = true;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::string hex;
  for (size_t nibble = 0; nibble * 4 < bits.size(); ++nibble) {
    int v = 0;
    for (size_t b = 0; b < 4 && nibble * 4 + b < bits.size(); ++b) v |= bits[nibble * 4 + b] ? 1 << b : 0;
    hex.insert(hex.begin(), "0123456789abcdef"[v]);
  }
  return "0x" + hex;
}

}  // namespace bert::harness
