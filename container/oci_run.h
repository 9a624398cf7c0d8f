// `podman run` / `docker run`: the two share their CLI for everything the harness uses (mounts, workdir,
// env, --cpuset-cpus/--cpuset-mems, host network and IPC); they differ in the binary and the GPU flag.
// podman.cpp and docker.cpp are one instance each.
#pragma once
#include "container/runtime.h"

namespace bert::container {

class OciRun : public Runtime {
 public:
  const char* launcher() const override { return nullptr; }
  // The rank's cpuset is a flag of its own `run`: the harness starts each rank.
  bool binds_ranks() const override { return true; }
  void validate(const ContainerSpec& c) const override;
  std::vector<std::string> setup_words(const ContainerSpec&) const override { return {}; }
  std::vector<std::string> launcher_flags(const ContainerSpec&) const override { return {}; }
  std::vector<std::string> command_prefix(const ContainerSpec& c, const RankResources* rank) const override;

 protected:
  // The flag exposing host GPU `gpu` to the container.
  virtual std::string gpu_flag(int gpu) const = 0;
};

}  // namespace bert::container
