#include "harness/launch/launcher.h"

#include <arpa/inet.h>

#include <algorithm>
#include <regex>

#include "harness/config/schema.h"
#include "slurm/hostlist.h"

namespace bert::harness {

// One entry per launcher; each is defined in its own file.
const Launcher& local_launcher();
const Launcher& srun_launcher();
const Launcher& mpirun_launcher();

namespace {
const std::vector<const Launcher*>& all() {
  static const std::vector<const Launcher*> launchers{&local_launcher(), &srun_launcher(), &mpirun_launcher()};
  return launchers;
}
}  // namespace

const Launcher& find_launcher(std::string_view name) {
  const std::optional<LauncherType> type = parse_enum(name, kLauncherTypeNames);
  std::string known;
  for (const Launcher* l : all()) {
    if (type == l->type()) return *l;
    known += (known.empty() ? "" : ", ") + std::string(l->name());
  }
  throw UserError("launcher.type", "unknown launcher '" + std::string(name) + "' (known: " + known + ")");
}

std::vector<std::string> unused_launcher_keys(const Config& cfg, std::string_view type) {
  std::vector<std::string> out;
  for (const Launcher* l : all()) {
    if (type == l->name()) continue;
    const std::string group = "launcher." + std::string(l->name()) + ".";
    for (const SchemaEntry& e : schema())
      if (e.path.starts_with(group) && cfg.given(e.path)) out.push_back(e.path);
  }
  return out;
}

std::vector<std::string> launcher_names() {
  std::vector<std::string> out;
  for (const Launcher* l : all()) out.emplace_back(l->name());
  return out;
}

bool Launcher::can_start(const container::Runtime& rt) const {
  if (rt.binds_ranks()) return starts_each_rank();  // a prefix of its own per rank
  return rt.launcher() == nullptr || std::string_view(rt.launcher()) == name();
}

void require_shape(const JobShape& job) {
  if (job.nodes < 1) throw UserError("nodes.count", "need at least 1 node, got " + std::to_string(job.nodes));
  if (job.ranks_per_node < 1)
    throw UserError("nodes.ranks_per_node", "need at least 1 task per node, got " + std::to_string(job.ranks_per_node));
}

std::vector<std::string> without_excluded(const std::vector<std::string>& names, const NodeRequest& req,
                                          const std::string& where) {
  std::vector<std::string> out;
  for (const std::string& x : req.exclude)
    if (std::find(names.begin(), names.end(), x) == names.end()) {
      std::string all;
      for (const std::string& n : names) all += (all.empty() ? "" : ",") + n;
      throw UserError(Loc{"--exclude " + x}, "", "no node " + x + " among " + where + " (" + all + ")");
    }
  for (const std::string& n : names)
    if (std::find(req.exclude.begin(), req.exclude.end(), n) == req.exclude.end()) out.push_back(n);
  return out;
}

std::vector<std::string> allocation_hosts(const Config& cfg, const Env& env, const NodeRequest& req,
                                          std::vector<std::string>& warnings) {
  auto it = env.find("SLURM_JOB_NODELIST");
  if (it == env.end() || it->second.empty()) return {};
  auto alloc = slurm::expand_hostlist(it->second);
  if (!alloc) cfg.fail("nodes.count", "cannot read SLURM_JOB_NODELIST='" + it->second + "'");
  auto job = env.find("SLURM_JOB_ID");
  const std::string id = job == env.end() || job->second.empty() ? "" : job->second + " ";
  const std::vector<std::string> left = without_excluded(*alloc, req, "this Slurm job's nodes");
  const int n = static_cast<int>(left.size());
  std::string excluded;
  for (const std::string& x : req.exclude) excluded += (excluded.empty() ? "" : ",") + x;
  const std::string less = excluded.empty() ? "" : " less the excluded " + excluded + " leaves " + std::to_string(n);
  // A set on fewer nodes than allocated would leave nodes idle (and its result name would lie).
  if (n > req.count || (excluded.empty() && n != req.count))
    cfg.fail("nodes.count", std::to_string(req.count) + " node(s) but this Slurm job " + id + "has " +
                                std::to_string(alloc->size()) + " (" + it->second + ")" + less + ": submit with sbatch --nodes=" +
                                std::to_string(req.count + int(req.exclude.size())) + ", or set nodes.count to " + std::to_string(n));
  if (n < req.count) {
    const int floor = req.min_count > 0 ? req.min_count : req.count;
    if (n < floor)
      cfg.fail("nodes.count", std::to_string(req.count) + " node(s) but this Slurm job " + id + "has " +
                                  std::to_string(alloc->size()) + " (" + it->second + ")" + less +
                                  ": the benchmark's node count is fixed (nodes.count sets the global batch and the result's "
                                  "name; nodes.min_count would allow fewer); resubmit without the node (sbatch --exclude=" +
                                  excluded + ", as `harness run --resume OUTDIR --exclude " + excluded +
                                  " --submit-command` prints) or allocate a spare node (sbatch --nodes=" +
                                  std::to_string(req.count + int(req.exclude.size())) + ")");
    warnings.push_back("the set goes on with " + std::to_string(n) + " of its " + std::to_string(req.count) +
                       " nodes (nodes.min_count " + std::to_string(floor) + " allows it; " + excluded +
                       " excluded): its world size and global batch are smaller than the earlier runs'");
  }
  return left;
}

std::string host_name_problem(const std::string& host) {
  unsigned char addr[16];
  if (inet_pton(AF_INET, host.c_str(), addr) == 1 || inet_pton(AF_INET6, host.c_str(), addr) == 1) return "";
  static const std::regex label(R"(^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$)");
  if (host.empty()) return "is empty";
  if (host.size() > 253) return "is longer than 253 characters";
  size_t start = 0;
  while (true) {
    const size_t dot = host.find('.', start);
    const std::string part = host.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!std::regex_match(part, label))
      return "'" + host + "' is not a host name (letters, digits and '-' between dots, no '-' at either end of a part) "
             "nor an IP address";
    if (dot == std::string::npos) return "";
    start = dot + 1;
  }
}

}  // namespace bert::harness
