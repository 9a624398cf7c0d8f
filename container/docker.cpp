// docker run: the rank's binding applied by the runtime (--cpuset-cpus/--cpuset-mems), GPUs through the
// NVIDIA Container Toolkit (--gpus device=N).
#include "container/oci_run.h"

namespace bert::container {
namespace {

class Docker final : public OciRun {
 public:
  const char* name() const override { return "docker"; }

 protected:
  std::string gpu_flag(int gpu) const override { return "--gpus=device=" + std::to_string(gpu); }
};

}  // namespace

const Runtime& docker_runtime() {
  static const Docker r;
  return r;
}

}  // namespace bert::container
