#include "harness/plan/plan.h"

namespace bert::harness {
namespace {

bool needs_quotes(const std::string& s) {
  if (s.empty()) return true;
  for (char c : s) {
    bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                c == '.' || c == '/' || c == ',' || c == ':' || c == '=' || c == '+' || c == '@' || c == '%';
    if (!safe) return true;
  }
  return false;
}

}  // namespace

std::string shell_quote(const std::string& s) {
  if (!needs_quotes(s)) return s;
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

std::string Command::shell() const {
  std::string out;
  for (const auto& [k, v] : env) out += k + "=" + shell_quote(v) + " ";
  for (size_t i = 0; i < argv.size(); ++i) {
    if (i) out += ' ';
    out += shell_quote(argv[i]);
  }
  return out;
}

}  // namespace bert::harness
