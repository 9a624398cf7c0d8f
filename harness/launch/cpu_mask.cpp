#include "harness/launch/cpu_mask.h"

#include "binding/cpu_list.h"
#include "common/user_error.h"

namespace bert::harness {

std::string list_to_hex_mask(const std::string& list, const std::string& field) {
  if (list.empty()) throw UserError(field, "'' is not a CPU list (N or N-M items separated by commas)");
  const binding::IndexList cpus = binding::parse_list(list, field);
  std::string hex((static_cast<size_t>(cpus.back()) / 4) + 1, '0');  // nibble k counts from the right
  for (int c : cpus) {
    char& digit = hex[hex.size() - 1 - static_cast<size_t>(c) / 4];
    const int v = (digit <= '9' ? digit - '0' : digit - 'a' + 10) | 1 << (c % 4);
    digit = "0123456789abcdef"[v];
  }
  return "0x" + hex;
}

}  // namespace bert::harness
