// Checks every runtime applies to a ContainerSpec (absolute paths without the separators of any
// runtime's mount syntax, lower-case mount flags, environment names), and the mount flags in a
// runtime's own separator.
#pragma once
#include <string>

#include "container/runtime.h"

namespace bert::container {

// Throws UserError at the field of the first bad value. `need_name`: the runtime reuses a named container.
void check_spec(const ContainerSpec& c, bool need_name);
// "ro+rprivate" -> "ro<sep>rprivate".
std::string flags_joined(const std::string& flags, char sep);

}  // namespace bert::container
