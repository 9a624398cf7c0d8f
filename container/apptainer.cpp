// apptainer exec (Apptainer >= 1.0; `singularity exec` takes the same words): wraps each rank's command
// under any launcher, which binds it (srun --cpu-bind, bind); the host environment passes through by
// default. GPUs: --nv (the launcher's CUDA_VISIBLE_DEVICES picks them).
#include "container/runtime.h"
#include "container/spec_check.h"

namespace bert::container {
namespace {

class Apptainer final : public Runtime {
 public:
  const char* name() const override { return "apptainer"; }
  const char* launcher() const override { return nullptr; }
  bool binds_ranks() const override { return false; }
  void validate(const ContainerSpec& c) const override {
    check_spec(c, false);
    // --bind takes only these two options.
    for (const Mount& m : c.mounts)
      if (!m.flags.empty() && m.flags != "ro" && m.flags != "rw")
        throw UserError(m.field, "apptainer bind options are 'ro' or 'rw', not '" + m.flags + "'");
  }
  std::vector<std::string> setup_words(const ContainerSpec&) const override { return {}; }
  std::vector<std::string> launcher_flags(const ContainerSpec&) const override { return {}; }
  std::vector<std::string> command_prefix(const ContainerSpec& c, const RankResources*) const override {
    validate(c);
    std::vector<std::string> w{"apptainer", "exec"};
    if (c.gpus) w.push_back("--nv");
    if (!c.mount_home) w.push_back("--no-home");
    if (c.remap_root) w.push_back("--fakeroot");
    if (c.writable) w.push_back("--writable-tmpfs");
    if (!c.workdir.empty()) w.push_back("--pwd=" + c.workdir);
    for (const Mount& m : c.mounts) w.push_back("--bind=" + mount_short_form(m));
    // The host environment passes through unless --cleanenv; container.env names need no flag.
    w.push_back(c.image);
    return w;
  }
};

}  // namespace

const Runtime& apptainer_runtime() {
  static const Apptainer r;
  return r;
}

}  // namespace bert::container
