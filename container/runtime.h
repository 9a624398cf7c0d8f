// Container runtimes the ranks can run in: one type per runtime behind this interface, found by name
// (pyxis, enroot, podman, docker, apptainer). The harness composes a runtime with the launcher
// (harness/launch): a runtime entered through its launcher's own flags (pyxis is a SPANK plugin of srun)
// adds flags to the launcher's lines; one that wraps each rank's command (podman run, apptainer exec,
// enroot start) puts words before it. A runtime that applies the rank's binding itself (podman/docker
// --cpuset-cpus) needs a different prefix per rank, so the harness must start each rank. Values are
// validated here, so a bad mount never reaches the launcher.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "common/user_error.h"

namespace bert::container {

struct Mount {
  std::string src;    // absolute host path
  std::string dst;    // absolute container path ("" = same as src)
  std::string flags;  // mount flags joined with '+', e.g. "ro" or "ro+rprivate" ("" = none)
  std::string field;  // the YAML key it came from, for messages (e.g. "container.mounts[1]")
};

// What to run in, whatever the runtime.
struct ContainerSpec {
  std::string image;                 // squashfs/SIF path, docker://..., nvcr.io#repo/image:tag, local image name
  std::string image_field = "container.image";
  std::string name;                  // named container, reused by every step of the job (pyxis, enroot)
  std::vector<Mount> mounts;
  std::string workdir;
  std::vector<std::string> env;      // names whose host value wins over the image's
  bool mount_home = false;
  bool remap_root = false;
  bool writable = false;
  bool gpus = false;                 // the ranks use GPUs (runtimes that need a flag to expose them)
};

// One rank as a runtime that applies the binding sees it (podman/docker): host CPU and NUMA lists in
// Linux list syntax ("0-3,8"; "" = not bound), its GPU (-1 = none) and the names of its environment
// (RANK, LOCAL_RANK, ...) whose host value the container must get.
struct RankResources {
  std::string cpus;
  std::string mems;
  int gpu = -1;
  std::vector<std::string> env;
};

class Runtime {
 public:
  virtual ~Runtime() = default;
  virtual const char* name() const = 0;
  // The launcher whose own flags start this runtime (pyxis: "srun"); nullptr when the runtime wraps
  // each rank's command and works under any launcher.
  virtual const char* launcher() const = 0;
  // The runtime applies each rank's CPU/memory binding (podman/docker --cpuset-*): its command prefix
  // differs per rank, so only a launcher that starts each rank itself can use it.
  virtual bool binds_ranks() const = 0;
  // Throws UserError (field = the spec's field of the bad value) for anything the runtime cannot take.
  virtual void validate(const ContainerSpec& c) const = 0;
  // Words of the once-per-job step that prepares the image on every node, run after the launcher's
  // per-node prefix (pyxis: flags of srun before `true`; enroot: `enroot create ...`). Empty: no step.
  virtual std::vector<std::string> setup_words(const ContainerSpec& c) const = 0;
  // Flags added to the launcher's step (pyxis), and words put before each rank's command (podman run
  // ... IMAGE). `rank` is the rank the prefix is for when binds_ranks(), else nullptr (one prefix for all).
  virtual std::vector<std::string> launcher_flags(const ContainerSpec& c) const = 0;
  virtual std::vector<std::string> command_prefix(const ContainerSpec& c, const RankResources* rank) const = 0;
};

// The runtime of this name, or nullptr.
const Runtime* find_runtime(std::string_view name);
std::vector<std::string> runtime_names();

}  // namespace bert::container
