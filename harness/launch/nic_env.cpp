#include "harness/launch/launcher.h"

namespace bert::harness {

Env nic_env(const Launcher& launcher, const std::vector<std::string>& nics) {
  if (nics.empty()) return {};
  std::string list;
  for (const std::string& n : nics) list += (list.empty() ? "" : ",") + n;
  Env env;
  for (const NicVariable& v : launcher.nic_variables()) env[v.name] = v.format == NicFormat::NcclHca ? "=" + list : list;
  return env;
}

}  // namespace bert::harness
