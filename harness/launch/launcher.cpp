#include "harness/launch/launcher.h"

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
  std::string known;
  for (const Launcher* l : all()) {
    if (name == l->name()) return *l;
    known += (known.empty() ? "" : ", ") + std::string(l->name());
  }
  throw UserError("launcher.type", "unknown launcher '" + std::string(name) + "' (known: " + known + ")");
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

}  // namespace bert::harness
