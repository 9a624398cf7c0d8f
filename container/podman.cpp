// podman run: the rank's binding applied by the runtime (--cpuset-cpus/--cpuset-mems), GPUs through CDI
// (nvidia-ctk cdi generate: --device nvidia.com/gpu=N). Site settings (OCI runtime, cgroup manager,
// ulimits) belong to containers.conf (CONTAINERS_CONF), not to these lines.
#include "container/oci_run.h"

namespace bert::container {
namespace {

class Podman final : public OciRun {
 public:
  const char* name() const override { return "podman"; }

 protected:
  std::string gpu_flag(int gpu) const override { return "--device=nvidia.com/gpu=" + std::to_string(gpu); }
};

}  // namespace

const Runtime& podman_runtime() {
  static const Podman r;
  return r;
}

}  // namespace bert::container
