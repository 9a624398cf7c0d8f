// Internal to harness/plan: placing the errors of the lower layers (binding, container flags, launch
// lines) at the YAML key they come from.
#pragma once
#include <string>

#include "harness/config/config.h"

namespace bert::harness::detail {

// The key a binding error's field stands for ("topology" -> topology.xml or topology.synthetic).
std::string field_key(const Config& cfg, const std::string& field);

// Runs f(); a UserError of a lower layer that names only its field becomes one at the field's key (a
// list item when the field names one, e.g. "container.mounts[2]"). Placed errors pass unchanged.
template <class F>
auto guarded(const Config& cfg, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const UserError& e) {
    if (!e.loc.file.empty()) throw;
    const std::string key = field_key(cfg, e.field.substr(0, e.field.find('[')));
    if (e.field.size() > key.size() && e.field.compare(0, key.size() + 1, key + "[") == 0 && cfg.given(key))
      throw UserError(cfg.item_loc(key, std::stoul(e.field.substr(key.size() + 1))), e.field, e.message);
    cfg.fail(key, e.message);
  }
}

}  // namespace bert::harness::detail
