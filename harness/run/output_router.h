// Splits the launched programs' output into lines and routes each one as it arrives: rank 0's lines
// go to the experiment log (written per line, nothing held back), other ranks' lines to the ranks
// log with a "<rank>: " prefix, and rank 0's lines also to a callback (live progress).
#pragma once
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "harness/launch/rank_tags.h"

namespace bert::harness {

class OutputRouter {
 public:
  // Fds are not owned; ranks_fd may be -1 (other ranks' output dropped).
  OutputRouter(int main_fd, int ranks_fd, RankTagStyle style,
               std::function<void(const std::string&)> on_rank0_line = {});

  // `source` is the local rank for BySource, 0 for a single launcher process; `stream` 1 or 2.
  void feed(int source, int stream, std::string_view data);
  void finish();  // writes out unterminated last lines

  // errno of the first failed write to the experiment log (ENOSPC, EFBIG, EIO ...), 0 if none.
  int main_write_errno() const { return main_errno_; }
  long long main_bytes() const { return main_bytes_; }

 private:
  void route(int source, std::string line);
  void route_rank(int rank, const std::string& line);
  void write_main(const std::string& line);
  int main_fd_, ranks_fd_;
  RankTagStyle style_;
  std::function<void(const std::string&)> on_rank0_;
  std::map<int, std::string> partial_;  // key: source * 4 + stream
  std::map<int, MpirunDemux> demux_;     // Mpirun style, same key
  int main_errno_ = 0;
  long long main_bytes_ = 0;
};

// write(2) until done; returns 0 or the errno of the failure.
int write_all(int fd, std::string_view data);

}  // namespace bert::harness
