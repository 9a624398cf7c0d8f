// The local launcher: every rank a process of this machine, started by the executor itself with its
// rank environment (RANK, LOCAL_RANK, ...); the ranks meet through a file rendezvous.
#include "harness/launch/launcher.h"

namespace bert::harness {
namespace {

class Local final : public Launcher {
 public:
  LauncherType type() const override { return LauncherType::Local; }

  Hosts find_hosts(const Config& cfg, const Env&, const NodeRequest& req) const override {
    if (req.count != 1) cfg.fail("nodes.count", "the local launcher runs on one node, not " + std::to_string(req.count));
    if (!req.exclude.empty())
      throw UserError(Loc{"--exclude " + req.exclude.front()}, "", "the local launcher runs on this one node; there is none to exclude");
    return {{"localhost"}, "127.0.0.1", {}};
  }
  std::string placeholder_host(int) const override { return "localhost"; }
  // binding.apply launcher: numactl in front of each rank (CPUs by OS number, memory on its nodes).
  LaunchLines lines(const Config&, const JobShape& job) const override {
    LaunchLines l;
    for (const RankCpus& r : job.bindings) {
      std::vector<std::string> p{"numactl"};
      if (!r.cpus.empty()) p.push_back("--physcpubind=" + r.cpus);
      if (!r.mems.empty()) p.push_back("--membind=" + r.mems);
      l.rank_prefix.push_back(p.size() > 1 ? p : std::vector<std::string>{});
    }
    return l;
  }

  RankTagStyle tag_style() const override { return RankTagStyle::BySource; }
  std::vector<std::string> per_node_tag_flags() const override { return {}; }
  std::vector<std::string> stop_command(const Env&) const override { return {}; }
  // One node: the program runs here, as node 0, with this process's environment.
  std::vector<std::string> beside_step_prefix(const std::vector<std::string>&, const std::vector<std::string>&) const override {
    return {};
  }
  std::string node_index_variable() const override { return ""; }
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
