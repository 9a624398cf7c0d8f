#include "harness/run/failure_report.h"

#include <cctype>
#include <deque>
#include <sstream>

namespace bert::harness {
namespace {

bool is_mllog(const std::string& l) { return l.find(":::MLLOG") != std::string::npos; }

}  // namespace

std::vector<std::string> rank_last_lines(const std::string& log_text, const std::string& ranks_text, int rank, size_t n) {
  std::deque<std::string> keep;
  auto add = [&](const std::string& l) {
    if (l.empty() || is_mllog(l)) return;
    keep.push_back(l);
    if (keep.size() > n) keep.pop_front();
  };
  std::string line;
  if (rank <= 0) {  // rank 0's lines are the experiment log's (untagged)
    std::istringstream in(log_text);
    while (std::getline(in, line)) add(line);
  }
  if (rank != 0) {  // the others': "<rank>: line" in the ranks log
    const std::string tag = std::to_string(rank) + ": ";
    std::istringstream in(ranks_text);
    while (std::getline(in, line))
      if (rank < 0 || line.rfind(tag, 0) == 0) add(rank < 0 ? line : line.substr(tag.size()));
  }
  return {keep.begin(), keep.end()};
}

std::string exit_status_meaning(const std::string& status_text) {
  // "exit status 125" (a process) or "exit code 125" (a launcher's report): the number
  std::string status = status_text;
  for (const char* form : {"exit status ", "exit code "})
    if (status.rfind(form, 0) == 0) status = "exit code " + status.substr(std::string(form).size());
  if (status == "exit code 125") return "the container runtime itself failed: podman/docker could not start the container, its own error is above";
  if (status == "exit code 126") return "the command could not be run: not executable, or the runtime could not exec it";
  if (status == "exit code 127") return "the command was not found: not in the image, or not on PATH";
  return "";
}

std::string failure_signature(const std::string& message) {
  std::string s;
  bool digits = false;
  for (size_t i = 0; i < message.size(); ++i) {
    const char c = message[i];
    auto after = [&](const std::string& w) { return s.size() >= w.size() && s.compare(s.size() - w.size(), w.size(), w) == 0; };
    const bool keep = after("exit code ") || after("exit status ") || (digits && s.back() != '#');
    if (std::isdigit(static_cast<unsigned char>(c)) && !keep) {
      if (!digits) s += '#';
      digits = true;
    } else {
      s += c;
      digits = std::isdigit(static_cast<unsigned char>(c)) != 0;
    }
  }
  return s;
}

}  // namespace bert::harness
