// pyxis (Slurm SPANK plugin) flags for srun: --container-image/-name/-mounts/-workdir/-env and the
// boolean switches.
#include "container/runtime.h"

namespace bert::container {
namespace {

void check_path(const std::string& path, const std::string& field, const char* what) {
  if (path.empty()) throw UserError(field, std::string(what) + " path is empty");
  if (path.front() != '/') throw UserError(field, std::string(what) + " path '" + path + "' is not absolute");
  for (char c : path) {
    if (c == ',' || c == ':')
      throw UserError(field, std::string(what) + " path '" + path + "' contains '" + c +
                                  "', which pyxis uses as a separator in --container-mounts");
  }
}

void check_flags(const std::string& flags, const std::string& field) {
  for (char c : flags) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '=' || c == '_';
    if (!ok) throw UserError(field, "mount flags '" + flags + "' may only hold lower-case words joined by '+'");
  }
}

bool is_env_name(const std::string& s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

void check_spec(const ContainerSpec& o) {
  if (o.image.empty()) throw UserError(o.image_field, "container image is empty");
  if (o.image.find_first_of(" \t\n,") != std::string::npos)
    throw UserError(o.image_field, "container image '" + o.image + "' contains a blank or a comma");
  if (o.name.empty() || o.name.find_first_of(" \t\n,:/") != std::string::npos)
    throw UserError("container.name", "container name '" + o.name + "' must be non-empty without blanks, ',', ':' or '/'");
  for (const Mount& m : o.mounts) {
    check_path(m.src, m.field, "mount source");
    if (!m.dst.empty()) check_path(m.dst, m.field, "mount destination");
    check_flags(m.flags, m.field);
  }
  if (!o.workdir.empty()) check_path(o.workdir, "container.workdir", "workdir");
  for (const std::string& e : o.env)
    if (!is_env_name(e)) throw UserError("container.env", "'" + e + "' is not an environment variable name");
}

// "src:dst[:flags],..." as pyxis expects it.
std::string mounts_value(const std::vector<Mount>& mounts) {
  std::string out;
  for (const Mount& m : mounts) {
    if (!out.empty()) out += ',';
    out += m.src;
    if (!m.dst.empty() || !m.flags.empty()) out += ':' + (m.dst.empty() ? m.src : m.dst);
    if (!m.flags.empty()) out += ':' + m.flags;
  }
  return out;
}

class Pyxis final : public Runtime {
 public:
  const char* name() const override { return "pyxis"; }
  const char* launcher() const override { return "srun"; }
  void validate(const ContainerSpec& c) const override { check_spec(c); }
  // The import step: every node imports the image into the named container the steps reuse.
  std::vector<std::string> setup_words(const ContainerSpec& o) const override {
    check_spec(o);
    return {"--container-image=" + o.image, "--container-name=" + o.name};
  }
  std::vector<std::string> launcher_flags(const ContainerSpec& o) const override {
    check_spec(o);
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
  std::vector<std::string> command_prefix(const ContainerSpec&) const override { return {}; }
};

}  // namespace

const Runtime& pyxis_runtime() {
  static const Pyxis r;
  return r;
}

}  // namespace bert::container
