// pyxis (Slurm SPANK plugin) flags for srun: --container-image/-name/-mounts/-workdir/-env and the
// boolean switches. GPUs and binding: srun's (--gres, --cpu-bind), which the container inherits.
#include "container/runtime.h"
#include "container/spec_check.h"

namespace bert::container {
namespace {

// "src:dst[:flags],..." as pyxis expects it.
std::string mounts_value(const std::vector<Mount>& mounts) {
  std::string out;
  for (const Mount& m : mounts) {
    if (!out.empty()) out += ',';
    out += mount_short_form(m);
  }
  return out;
}

class Pyxis final : public Runtime {
 public:
  const char* name() const override { return "pyxis"; }
  const char* launcher() const override { return "srun"; }
  bool binds_ranks() const override { return false; }
  void validate(const ContainerSpec& c) const override { check_spec(c, true); }
  // The import step: every node imports the image into the named container the steps reuse.
  std::vector<std::string> setup_words(const ContainerSpec& o) const override {
    check_spec(o, true);
    return {"--container-image=" + o.image, "--container-name=" + o.name};
  }
  std::vector<std::string> launcher_flags(const ContainerSpec& o) const override {
    check_spec(o, true);
    std::vector<std::string> f{"--container-name=" + o.name};
    if (!o.mounts.empty()) f.push_back("--container-mounts=" + mounts_value(o.mounts));
    if (!o.workdir.empty()) f.push_back("--container-workdir=" + o.workdir);
    if (!o.env.empty()) {
      std::string names;
      for (const std::string& e : o.env) names += (names.empty() ? "" : ",") + e;
      f.push_back("--container-env=" + names);
    }
    if (!o.mount_home) f.push_back("--no-container-mount-home");
    if (o.remap_root) f.push_back("--container-remap-root");
    if (o.writable) f.push_back("--container-writable");
    return f;
  }
  std::vector<std::string> command_prefix(const ContainerSpec&, const RankResources*) const override { return {}; }
};

}  // namespace

const Runtime& pyxis_runtime() {
  static const Pyxis r;
  return r;
}

}  // namespace bert::container
