#include "harness/run/output_router.h"

#include <unistd.h>

#include <cctype>
#include <cerrno>

namespace bert::harness {

int write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data.remove_prefix(size_t(n));
  }
  return 0;
}

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
  if (style == RankTagStyle::Srun) {
    // srun -l: optional leading spaces (it right-aligns the task id), digits, ": ".
    size_t pos = line.find_first_not_of(' ');
    if (pos == std::string::npos) return -1;
    int rank = digits_at(line, pos);
    if (rank < 0 || line.compare(pos, 2, ": ") != 0) return -1;
    line.erase(0, pos + 2);
    return rank;
  }
  if (style == RankTagStyle::Mpirun) {
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

OutputRouter::OutputRouter(int main_fd, int ranks_fd, RankTagStyle style,
                           std::function<void(const std::string&)> on_rank0_line)
    : main_fd_(main_fd), ranks_fd_(ranks_fd), style_(style), on_rank0_(std::move(on_rank0_line)) {}

void OutputRouter::feed(int source, int stream, std::string_view data) {
  std::string& buf = partial_[source * 4 + stream];
  while (!data.empty()) {
    size_t nl = data.find('\n');
    if (nl == std::string_view::npos) {
      buf.append(data);
      return;
    }
    buf.append(data.substr(0, nl));
    data.remove_prefix(nl + 1);
    std::string line;
    line.swap(buf);
    route(source, std::move(line));
  }
}

void OutputRouter::finish() {
  for (auto& [key, buf] : partial_) {
    if (buf.empty()) continue;
    std::string line;
    line.swap(buf);
    route(key / 4, std::move(line));
  }
}

void OutputRouter::route(int source, std::string line) {
  int rank = source;
  if (style_ != RankTagStyle::BySource) {
    rank = strip_rank_tag(style_, line);
    if (rank < 0) {  // the launcher's own messages (srun: error: ...) belong in the log
      write_main(line);
      return;
    }
  }
  if (rank == 0) {
    write_main(line);
    if (on_rank0_) on_rank0_(line);
    return;
  }
  if (ranks_fd_ >= 0) write_all(ranks_fd_, std::to_string(rank) + ": " + line + "\n");
}

void OutputRouter::write_main(const std::string& line) {
  if (main_errno_ != 0) return;
  std::string out = line + "\n";
  main_errno_ = write_all(main_fd_, out);
  if (main_errno_ == 0) main_bytes_ += (long long)out.size();
}

}  // namespace bert::harness
