#include "container/oci_run.h"

#include "container/spec_check.h"

namespace bert::container {

void OciRun::validate(const ContainerSpec& c) const {
  check_spec(c, false);
  if (c.mount_home)
    throw UserError("container.mount_home", std::string(name()) + " mounts no home directory; add it to container.mounts");
}

// run --rm: one container per rank and experiment, gone when the rank ends. Host network and IPC: the
// ranks meet over TCP (Gloo, NCCL bootstrap) and share memory (NCCL) as on bare metal. Not writable:
// --read-only (the ranks write only through the results mount; /tmp and /run stay tmpfs).
std::vector<std::string> OciRun::command_prefix(const ContainerSpec& c, const RankResources* rank) const {
  validate(c);
  if (rank == nullptr)
    throw UserError("container.runtime", std::string(name()) + " applies each rank's binding (--cpuset-cpus), so the harness must start each rank (launcher.type local)");
  std::vector<std::string> w{name(), "run", "--rm", "--network=host", "--ipc=host"};
  if (!c.writable) w.push_back("--read-only");
  if (!rank->cpus.empty()) w.push_back("--cpuset-cpus=" + rank->cpus);
  if (!rank->mems.empty()) w.push_back("--cpuset-mems=" + rank->mems);
  if (c.gpus && rank->gpu >= 0) w.push_back(gpu_flag(rank->gpu));
  for (const Mount& m : c.mounts) {
    std::string v = m.src + ":" + mount_target(m);
    if (!m.flags.empty()) v.append(":").append(flags_joined(m.flags, ','));
    w.push_back("--volume=" + v);
  }
  if (!c.workdir.empty()) w.push_back("--workdir=" + c.workdir);
  // --env NAME (no value): the container gets the value NAME has where `run` starts.
  for (const std::string& e : rank->env) w.push_back("--env=" + e);
  for (const std::string& e : c.env) w.push_back("--env=" + e);
  w.push_back(c.image);
  return w;
}

}  // namespace bert::container
