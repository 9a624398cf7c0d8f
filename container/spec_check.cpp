#include "container/spec_check.h"

namespace bert::container {
namespace {

// ':' separates source, destination and flags in every runtime's mount syntax; ',' separates mounts
// in pyxis' --container-mounts and apptainer's --bind.
void check_path(const std::string& path, const std::string& field, const char* what) {
  if (path.empty()) throw UserError(field, std::string(what) + " path is empty");
  if (path.front() != '/') throw UserError(field, std::string(what) + " path '" + path + "' is not absolute");
  for (char c : path) {
    if (c == ',' || c == ':')
      throw UserError(field, std::string(what) + " path '" + path + "' contains '" + c +
                                  "', which container runtimes use as a separator in their mount syntax");
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

}  // namespace

void check_spec(const ContainerSpec& o, bool need_name) {
  if (o.image.empty()) throw UserError(o.image_field, "container image is empty");
  if (o.image.find_first_of(" \t\n,") != std::string::npos)
    throw UserError(o.image_field, "container image '" + o.image + "' contains a blank or a comma");
  if (need_name && (o.name.empty() || o.name.find_first_of(" \t\n,:/") != std::string::npos))
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

std::string flags_joined(const std::string& flags, char sep) {
  std::string out = flags;
  for (char& c : out)
    if (c == '+') c = sep;
  return out;
}

std::string mount_target(const Mount& m) { return m.dst.empty() ? m.src : m.dst; }

std::string mount_short_form(const Mount& m) {
  std::string v = m.src;
  if (!m.dst.empty() || !m.flags.empty()) v.append(":").append(mount_target(m));
  if (!m.flags.empty()) v.append(":").append(m.flags);
  return v;
}

}  // namespace bert::container
