// Checks every runtime applies to a ContainerSpec (absolute paths without the separators of any
// runtime's mount syntax, lower-case mount flags, environment names), the mount flags in a
// runtime's own separator, and the mount forms several runtimes share.
#pragma once
#include <string>

#include "container/runtime.h"

namespace bert::container {

// Throws UserError at the field of the first bad value. `need_name`: the runtime reuses a named container.
void check_spec(const ContainerSpec& c, bool need_name);
// "ro+rprivate" -> "ro<sep>rprivate".
std::string flags_joined(const std::string& flags, char sep);
// Where the mount appears inside the container (dst, or src when dst is empty).
std::string mount_target(const Mount& m);
// "src[:dst[:flags]]" with the flags as written ('+'-joined), as pyxis and apptainer take a mount.
std::string mount_short_form(const Mount& m);

}  // namespace bert::container
