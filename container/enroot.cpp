// enroot without pyxis: the job's setup step unpacks the squashfs image into a named container on every
// node (enroot create --force --name), each rank's command runs in `enroot start NAME` under any launcher,
// which binds it. enroot start has no working-directory option: the ranks start in the image's (our
// command lines use absolute paths only). GPUs: enroot's NVIDIA hook, driven by the image's
// NVIDIA_VISIBLE_DEVICES.
#include "container/runtime.h"
#include "container/spec_check.h"

namespace bert::container {
namespace {

class Enroot final : public Runtime {
 public:
  const char* name() const override { return "enroot"; }
  const char* launcher() const override { return nullptr; }
  bool binds_ranks() const override { return false; }
  void validate(const ContainerSpec& c) const override {
    check_spec(c, true);
    if (c.image.front() != '/')
      throw UserError(c.image_field, "enroot creates containers from a squashfs file: give its absolute path, not '" + c.image +
                                         "' (container/import.sh makes one)");
  }
  std::vector<std::string> setup_words(const ContainerSpec& c) const override {
    validate(c);
    return {"enroot", "create", "--force", "--name", c.name, c.image};
  }
  std::vector<std::string> launcher_flags(const ContainerSpec&) const override { return {}; }
  std::vector<std::string> command_prefix(const ContainerSpec& c, const RankResources*) const override {
    validate(c);
    std::vector<std::string> w;
    // Home is mounted by enroot's 10-home hook only when asked through its environment.
    if (c.mount_home) w = {"env", "ENROOT_MOUNT_HOME=yes"};
    w.insert(w.end(), {"enroot", "start"});
    if (c.remap_root) w.push_back("--root");
    if (c.writable) w.push_back("--rw");
    // --mount takes an fstab line with colons between the fields: SRC:DST:TYPE:OPTIONS.
    for (const Mount& m : c.mounts) {
      std::string opts = "x-create=auto,rbind";
      if (!m.flags.empty()) opts.append(",").append(flags_joined(m.flags, ','));
      w.insert(w.end(), {"--mount", m.src + ":" + mount_target(m) + ":none:" + opts});
    }
    for (const std::string& e : c.env) w.insert(w.end(), {"--env", e});
    w.push_back(c.name);
    return w;
  }
};

}  // namespace

const Runtime& enroot_runtime() {
  static const Enroot r;
  return r;
}

}  // namespace bert::container
