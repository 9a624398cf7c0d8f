#include "binding/cpu_list.h"

#include <algorithm>
#include <cctype>
#include <iterator>

#include "binding/binding.h"

namespace bert::binding {
namespace {

constexpr long kMaxIndex = 1 << 20;  // far above any real CPU count; guards against "0-999999999"

long parse_number(const std::string& part, const std::string& text, const std::string& field) {
  if (part.empty() || !std::all_of(part.begin(), part.end(), [](unsigned char c) { return std::isdigit(c); }))
    throw UserError(field, "unparseable list '" + text + "': '" + part + "' is not a non-negative number");
  if (part.size() > 7 || std::stol(part) > kMaxIndex)
    throw UserError(field, "unparseable list '" + text + "': index " + part + " is too large");
  return std::stol(part);
}

}  // namespace

IndexList parse_list(const std::string& text, const std::string& field) {
  IndexList out;
  if (text.empty()) return out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    size_t dash = item.find('-');
    long lo = parse_number(item.substr(0, dash), text, field);
    long hi = dash == std::string::npos ? lo : parse_number(item.substr(dash + 1), text, field);
    if (hi < lo)
      throw UserError(field, "unparseable list '" + text + "': range '" + item + "' is reversed");
    for (long i = lo; i <= hi; ++i) out.push_back(static_cast<int>(i));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string format_list(const IndexList& list) {
  std::string out;
  for (size_t i = 0; i < list.size();) {
    size_t j = i;
    while (j + 1 < list.size() && list[j + 1] == list[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(list[i]);
    if (j > i) out += '-' + std::to_string(list[j]);
    i = j + 1;
  }
  return out;
}

IndexList list_intersect(const IndexList& a, const IndexList& b) {
  IndexList out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

IndexList list_union(const IndexList& a, const IndexList& b) {
  IndexList out;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

IndexList list_minus(const IndexList& a, const IndexList& b) {
  IndexList out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

bool list_contains(const IndexList& list, int index) {
  return std::binary_search(list.begin(), list.end(), index);
}

int first_outside(const IndexList& wanted, const IndexList& allowed) {
  for (int i : wanted)
    if (!list_contains(allowed, i)) return i;
  return -1;
}

std::string out_of_range_message(const std::string& what, int index, const IndexList& allowed) {
  return what + " argument " + std::to_string(index) + " is out of range (allowed: " + format_list(allowed) + ")";
}

}  // namespace bert::binding
