// Open MPI's mpirun over a host list or hostfile: `mpirun -np N*T --map-by ppr:T:node --bind-to none
// (--host h:T,... | --hostfile F) -x NAME=VALUE ... --tag-output`, lines tagged "[1,<rank>]<stdout>:".
#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include "harness/launch/launcher.h"

namespace bert::harness {
namespace {

// Open MPI's hostfile: one host per line ("node01 slots=8 max_slots=8"), '#' comments, blank lines.
std::vector<std::string> read_hostfile(std::istream& in) {
  std::vector<std::string> hosts;
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string host;
    if (words >> host && std::find(hosts.begin(), hosts.end(), host) == hosts.end()) hosts.push_back(host);
  }
  return hosts;
}

// binding.apply launcher: an Open MPI rankfile (`rank R=host slot=<OS cpu list>`) replaces the mapping
// and `--bind-to none`; Open MPI binds no memory, so the ranks' pages are first-touch on their CPUs' node.
void add_rankfile(LaunchLines& l, const JobShape& job, const std::string& hostfile) {
  if (!hostfile.empty() || static_cast<int>(job.hosts.names.size()) != job.nodes)
    throw UserError("binding.apply", "mpirun binds through a rankfile, which needs launcher.mpirun.hosts (not a hostfile)");
  if (job.bindings.front().cpus.empty()) return;
  std::string text;
  for (int n = 0; n < job.nodes; ++n)
    for (size_t r = 0; r < job.bindings.size(); ++r)
      text += "rank " + std::to_string(n * job.ranks_per_node + static_cast<int>(r)) + "=" + job.hosts.names[size_t(n)] +
              " slot=" + job.bindings[r].cpus + "\n";
  const std::string path = job.files_dir + "/rankfile";
  l.files[path] = text;
  auto drop = [&](const std::string& flag) {  // a flag and its value
    for (size_t i = 0; i + 1 < l.step.size(); ++i)
      if (l.step[i] == flag) l.step.erase(l.step.begin() + long(i), l.step.begin() + long(i) + 2);
  };
  drop("--map-by");
  drop("--bind-to");
  l.step.insert(l.step.begin() + 3, {"--rankfile", path, "--mca", "rmaps_rank_file_physical", "1"});
  if (!job.bindings.front().mems.empty())
    l.notes.push_back("binding.apply launcher: an Open MPI rankfile binds CPUs only; memory is first-touch local");
}

class Mpirun final : public Launcher {
 public:
  LauncherType type() const override { return LauncherType::Mpirun; }

  // The hosts as written, else the hostfile's, else the Slurm allocation's; rank 0's host is the rendezvous.
  Hosts find_hosts(const Config& cfg, const Env& env, const NodeRequest& req) const override {
    const int num_nodes = req.count;
    Hosts h;
    h.names = cfg.strings("launcher.mpirun.hosts");
    const bool listed = !h.names.empty();
    for (size_t i = 0; i < h.names.size(); ++i)
      if (const std::string problem = host_name_problem(h.names[i]); !problem.empty())
        throw UserError(cfg.item_loc("launcher.mpirun.hosts", i), "launcher.mpirun.hosts[" + std::to_string(i) + "]", problem);
    if (!h.names.empty()) h.names = without_excluded(h.names, req, "launcher.mpirun.hosts");
    const std::string hostfile = cfg.path("launcher.mpirun.hostfile");
    if (!hostfile.empty()) {
      std::ifstream in(hostfile);
      if (!in) {  // e.g. a dry-run away from the cluster: mpirun reads it there
        h.warnings.push_back("launcher.mpirun.hostfile " + hostfile + " cannot be read here: node names and MASTER_ADDR "
                             "are placeholders (mpirun reads the file where the set runs)");
        return h;
      }
      h.names = without_excluded(read_hostfile(in), req, hostfile);
      if (static_cast<int>(h.names.size()) < num_nodes)
        cfg.fail("launcher.mpirun.hostfile", hostfile + " names " + std::to_string(h.names.size()) + " host(s) for " +
                                                 std::to_string(num_nodes) + " nodes");
      h.names.resize(static_cast<size_t>(num_nodes));
    } else if (!listed) {
      h.names = allocation_hosts(cfg, env, req, h.warnings);
      if (!h.names.empty() && static_cast<int>(h.names.size()) < num_nodes) {  // nodes.min_count allowed it
        h.master_addr = h.names.front();
        return h;
      }
    }
    if (static_cast<int>(h.names.size()) != num_nodes) {
      cfg.fail(h.names.empty() ? "launcher.type" : "launcher.mpirun.hosts",
               "mpirun needs launcher.mpirun.hosts with one host per node (" + std::to_string(num_nodes) +
                   "), launcher.mpirun.hostfile or a Slurm allocation; got " + std::to_string(h.names.size()) + " host(s)" +
                   (req.exclude.empty() ? "" : " once --exclude took its own (list a spare host)"));
    }
    h.master_addr = h.names.front();
    return h;
  }
  std::string placeholder_host(int node) const override { return "host-" + std::to_string(node); }

  LaunchLines lines(const Config& cfg, const JobShape& job) const override {
    require_shape(job);
    const std::string hostfile = cfg.path("launcher.mpirun.hostfile");
    // mpirun forwards only what -x names.
    Env env = job.env;
    if (!job.hosts.master_addr.empty()) env["MASTER_ADDR"] = job.hosts.master_addr;
    env["MASTER_PORT"] = job.master_port;
    auto base = [&](int tasks_per_node) {
      std::vector<std::string> a{cfg.str("launcher.mpirun.program"), "-np", std::to_string(job.nodes * tasks_per_node),
                                 "--map-by", "ppr:" + std::to_string(tasks_per_node) + ":node", "--bind-to", "none"};
      if (!hostfile.empty()) {
        a.insert(a.end(), {"--hostfile", hostfile});
      } else {
        if (static_cast<int>(job.hosts.names.size()) != job.nodes)
          throw UserError("launcher.mpirun.hosts", "lists " + std::to_string(job.hosts.names.size()) + " hosts for " +
                                                       std::to_string(job.nodes) + " nodes");
        std::string list;
        for (const std::string& h : job.hosts.names) {
          if (h.empty() || h.find_first_of(",: \t") != std::string::npos)
            throw UserError("launcher.mpirun.hosts", "host name '" + h + "' is empty or holds ',', ':' or a blank");
          list += (list.empty() ? "" : ",") + h + ":" + std::to_string(tasks_per_node);
        }
        a.insert(a.end(), {"--host", list});
      }
      for (const auto& [k, v] : env) a.insert(a.end(), {"-x", k + "=" + v});
      return a;
    };
    const std::vector<std::string> extra = cfg.strings("launcher.mpirun.extra_flags");
    LaunchLines l;
    l.per_node = base(1);
    l.per_node.insert(l.per_node.end(), extra.begin(), extra.end());
    l.step = base(job.ranks_per_node);
    for (const std::string& name : job.forward) l.step.insert(l.step.end(), {"-x", name});
    if (!job.bindings.empty()) add_rankfile(l, job, hostfile);
    l.step.push_back("--tag-output");  // "[1,R]<stdout>:" prefixes: the executor finds rank 0's log
    l.step.insert(l.step.end(), extra.begin(), extra.end());
    return l;
  }

  // Open MPI's transports: the UCX PML, and the openib BTL of Open MPI 4 and older.
  std::vector<NicVariable> nic_variables() const override { return {kNcclIbHca, kUcxNetDevices, kOpenibIfInclude}; }

  RankTagStyle tag_style() const override { return RankTagStyle::OpenMpi; }
  std::vector<std::string> per_node_tag_flags() const override { return {"--tag-output"}; }
  std::vector<std::string> stop_command(const Env&) const override { return {}; }

  // A second mpirun of one task a node beside the training one; -x NAME forwards a value by name.
  std::vector<std::string> beside_step_prefix(const std::vector<std::string>& per_node,
                                              const std::vector<std::string>& forward) const override {
    std::vector<std::string> a = per_node;
    for (const std::string& name : forward) a.insert(a.end(), {"-x", name});
    return a;
  }
  std::string node_index_variable() const override { return "OMPI_COMM_WORLD_RANK"; }

  // "Process name: [[51234,1],3]" then "Exit code: 7" (or "Signal: ...").
  RankFailure read_failure(const std::string& log_text, int, const std::string& process_status) const override {
    static const std::regex proc(R"(Process name:\s*\[\[\d+,\d+\],(\d+)\])");
    static const std::regex code(R"(Exit code:\s*(-?\d+))");
    static const std::regex signal(R"(Signal:\s*(.*)$)");
    RankFailure f;
    std::istringstream in(log_text);
    std::smatch m;
    for (std::string line; std::getline(in, line) && f.status.empty();) {
      if (f.rank < 0 && std::regex_search(line, m, proc)) f.rank = std::stoi(m[1]);
      else if (f.rank >= 0 && std::regex_search(line, m, code)) f.status = "exit code " + std::string(m[1]);
      else if (f.rank >= 0 && std::regex_search(line, m, signal)) f.status = "signal " + std::string(m[1]);
    }
    if (f.status.empty()) f.status = std::string(name()) + " " + process_status;
    return f;
  }
};

}  // namespace

const Launcher& mpirun_launcher() {
  static const Mpirun l;
  return l;
}

}  // namespace bert::harness
