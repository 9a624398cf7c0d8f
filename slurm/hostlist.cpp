#include "slurm/hostlist.h"

#include <cctype>

namespace bert::slurm {
namespace {

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// "01-03,07" -> {"01","02","03","07"} keeping the zero padding of the lower bound.
std::optional<std::vector<std::string>> expand_ranges(const std::string& body) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= body.size()) {
    size_t comma = body.find(',', start);
    std::string item = body.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t dash = item.find('-');
    std::string lo = item.substr(0, dash);
    std::string hi = dash == std::string::npos ? lo : item.substr(dash + 1);
    if (!all_digits(lo) || !all_digits(hi) || lo.size() > 9 || hi.size() > 9) return std::nullopt;
    long a = std::stol(lo), b = std::stol(hi);
    if (b < a || b - a > 100000) return std::nullopt;
    for (long v = a; v <= b; ++v) {
      std::string s = std::to_string(v);
      if (s.size() < lo.size()) s.insert(0, lo.size() - s.size(), '0');
      out.push_back(s);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

std::optional<std::vector<std::string>> expand_hostlist(const std::string& text) {
  std::vector<std::string> hosts;
  size_t i = 0;
  while (i < text.size()) {
    // One entry: prefix[ranges]suffix..., up to a comma outside brackets.
    std::vector<std::string> partial{""};
    while (i < text.size() && text[i] != ',') {
      if (text[i] == '[') {
        size_t close = text.find(']', i);
        if (close == std::string::npos) return std::nullopt;
        auto values = expand_ranges(text.substr(i + 1, close - i - 1));
        if (!values) return std::nullopt;
        std::vector<std::string> next;
        for (const std::string& p : partial)
          for (const std::string& v : *values) next.push_back(p + v);
        partial = std::move(next);
        i = close + 1;
      } else if (text[i] == ']' || std::isspace(static_cast<unsigned char>(text[i]))) {
        return std::nullopt;
      } else {
        for (std::string& p : partial) p += text[i];
        ++i;
      }
    }
    for (std::string& p : partial) {
      if (p.empty()) return std::nullopt;
      hosts.push_back(std::move(p));
    }
    ++i;  // the comma
  }
  if (hosts.empty()) return std::nullopt;
  return hosts;
}

}  // namespace bert::slurm
