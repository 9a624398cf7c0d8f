#include "harness/launch/rank_tags.h"

#include <cctype>

namespace bert::harness {
namespace {

// Parses a run of digits at `pos`; returns the value or -1.
int digits_at(const std::string& s, size_t& pos) {
  size_t start = pos;
  long v = 0;
  while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])) && pos - start < 9)
    v = v * 10 + (s[pos++] - '0');
  return pos == start ? -1 : int(v);
}

}  // namespace

int strip_rank_tag(RankTagStyle style, std::string& line) {
  if (style == RankTagStyle::TaskPrefix) {
    // srun -l: optional leading spaces (it right-aligns the task id), digits, ": ".
    size_t pos = line.find_first_not_of(' ');
    if (pos == std::string::npos) return -1;
    int rank = digits_at(line, pos);
    if (rank < 0 || line.compare(pos, 2, ": ") != 0) return -1;
    line.erase(0, pos + 2);
    return rank;
  }
  if (style == RankTagStyle::OpenMpi) {
    // mpirun --tag-output: "[jobid,rank]<stdout>:" or "<stderr>:", optionally followed by a space.
    if (line.empty() || line[0] != '[') return -1;
    size_t pos = 1;
    if (digits_at(line, pos) < 0 || pos >= line.size() || line[pos] != ',') return -1;
    ++pos;
    int rank = digits_at(line, pos);
    if (rank < 0 || line.compare(pos, 1, "]") != 0) return -1;
    ++pos;
    size_t colon = line.find(">:", pos);
    if (colon == std::string::npos || line[pos] != '<') return -1;
    pos = colon + 2;
    if (pos < line.size() && line[pos] == ' ') ++pos;
    line.erase(0, pos);
    return rank;
  }
  return -1;
}

namespace {

enum class TagParse { Complete, Incomplete, NotATag };

// "[<job>,<rank>]<stdout|stderr|stddiag>:" at s[i]; sets len/rank/stream when complete.
TagParse parse_mpirun_tag(std::string_view s, size_t i, size_t& len, int& rank, int& stream) {
  size_t p = i + 1;
  auto digits = [&](long& v) -> TagParse {
    size_t start = p;
    v = 0;
    while (p < s.size() && std::isdigit(static_cast<unsigned char>(s[p])) && p - start < 9) v = v * 10 + (s[p++] - '0');
    if (p == s.size()) return TagParse::Incomplete;
    return p == start ? TagParse::NotATag : TagParse::Complete;
  };
  auto lit = [&](std::string_view w) -> TagParse {
    for (char c : w) {
      if (p == s.size()) return TagParse::Incomplete;
      if (s[p++] != c) return TagParse::NotATag;
    }
    return TagParse::Complete;
  };
  long job = 0, r = 0;
  TagParse t;
  if ((t = digits(job)) != TagParse::Complete) return t;
  if ((t = lit(",")) != TagParse::Complete) return t;
  if ((t = digits(r)) != TagParse::Complete) return t;
  if ((t = lit("]<std")) != TagParse::Complete) return t;
  if (p + 3 > s.size()) return TagParse::Incomplete;
  std::string_view kind = s.substr(p, 3);
  if (kind != "out" && kind != "err" && kind != "dia") return TagParse::NotATag;
  p += kind == "dia" ? 4 : 3;
  if ((t = lit(">:")) != TagParse::Complete) return t;
  len = p - i;
  rank = int(r);
  stream = kind == "err" ? 2 : 1;
  return TagParse::Complete;
}

}  // namespace

MpirunDemux::MpirunDemux(std::function<void(int, std::string)> on_line) : on_line_(std::move(on_line)) {}

void MpirunDemux::deliver(std::string_view text) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    if (nl == std::string_view::npos) {
      partial_[cur_].append(text);
      return;
    }
    std::string line = partial_[cur_];
    line.append(text.substr(0, nl));
    partial_[cur_].clear();
    on_line_(cur_.first, std::move(line));
    text.remove_prefix(nl + 1);
    cur_ = {-1, 0};  // mpirun tags every line; what follows a newline untagged is its own
  }
}

void MpirunDemux::feed(std::string_view data) {
  pending_.append(data);
  std::string_view s = pending_;
  size_t i = 0, j = 0;
  while ((j = s.find('[', j)) != std::string_view::npos) {
    size_t len = 0;
    int rank = 0, stream = 0;
    TagParse t = parse_mpirun_tag(s, j, len, rank, stream);
    if (t == TagParse::NotATag) {
      ++j;
      continue;
    }
    deliver(s.substr(i, j - i));
    if (t == TagParse::Incomplete) {
      pending_.erase(0, j);
      return;
    }
    cur_ = {rank, stream};
    i = j = j + len;
  }
  deliver(s.substr(i));
  pending_.clear();
}

void MpirunDemux::finish() {
  std::string rest;
  rest.swap(pending_);
  deliver(rest);
  for (auto& [key, text] : partial_)
    if (!text.empty()) {
      on_line_(key.first, text);
      text.clear();
    }
}

}  // namespace bert::harness
