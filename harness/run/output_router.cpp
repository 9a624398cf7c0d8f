#include "harness/run/output_router.h"

#include <unistd.h>

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

OutputRouter::OutputRouter(int main_fd, int ranks_fd, RankTagStyle style,
                           std::function<void(const std::string&)> on_rank0_line)
    : main_fd_(main_fd), ranks_fd_(ranks_fd), style_(style), on_rank0_(std::move(on_rank0_line)) {}

void OutputRouter::feed(int source, int stream, std::string_view data) {
  if (style_ == RankTagStyle::OpenMpi) {
    auto it = demux_.find(source * 4 + stream);
    if (it == demux_.end())
      it = demux_.emplace(source * 4 + stream, MpirunDemux([this](int rank, std::string line) {
                            if (rank < 0) write_main(line);
                            else route_rank(rank, line);
                          })).first;
    it->second.feed(data);
    return;
  }
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
  for (auto& [key, d] : demux_) d.finish();
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
  route_rank(rank, line);
}

void OutputRouter::route_rank(int rank, const std::string& line) {
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
