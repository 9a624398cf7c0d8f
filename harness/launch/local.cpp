// The local launcher: every rank a process of this machine, started by the executor itself with its
// rank environment (RANK, LOCAL_RANK, ...); the ranks meet through a file rendezvous.
#include "harness/launch/launcher.h"

namespace bert::harness {
namespace {

class Local final : public Launcher {
 public:
  const char* name() const override { return "local"; }

  Hosts find_hosts(const Config& cfg, const Env&, int num_nodes) const override {
    if (num_nodes != 1) cfg.fail("nodes.count", "the local launcher runs on one node, not " + std::to_string(num_nodes));
    return {{"localhost"}, "127.0.0.1"};
  }
  std::string placeholder_host(int) const override { return "localhost"; }
  LaunchLines lines(const Config&, const JobShape&) const override { return {}; }

  RankTagStyle tag_style() const override { return RankTagStyle::BySource; }
  std::vector<std::string> per_node_tag_flags() const override { return {}; }
  std::vector<std::string> stop_command(const Env&) const override { return {}; }
  // Each rank is its own process: the one that failed is the rank.
  RankFailure read_failure(const std::string&, int process, const std::string& process_status) const override {
    return {process, process_status};
  }
};

}  // namespace

const Launcher& local_launcher() {
  static const Local l;
  return l;
}

}  // namespace bert::harness
