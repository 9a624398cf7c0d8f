// Internal to harness/plan: turning errors of the lower layers (binding, pyxis, launch lines) into
// ConfigErrors that point at the YAML key, and small shared helpers.
#pragma once
#include <string>

#include "binding/binding.h"
#include "container/pyxis.h"
#include "harness/config/config.h"
#include "slurm/launch_lines.h"

namespace bert::harness::detail {

// Throws a ConfigError at `key`'s place (the file's first line when the key is a default).
[[noreturn]] void fail_at(const Config& cfg, const std::string& key, const std::string& msg);

// The key a binding error's field stands for ("topology" -> topology.xml or topology.synthetic).
std::string field_key(const Config& cfg, const std::string& field);

// A path written in a YAML file is relative to that file; from the environment or --set, to the cwd.
std::string resolve_path(const Config& cfg, const std::string& key);

// Runs f(); BindingError, PyxisError and LaunchError become ConfigErrors at their key (a list item when
// the field names one, e.g. "container.mounts[2]").
template <class F>
auto guarded(const Config& cfg, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const binding::BindingError& e) {
    fail_at(cfg, field_key(cfg, e.field), e.what());
  } catch (const container::PyxisError& e) {
    std::string key = e.field.substr(0, e.field.find('['));
    if (e.field != key && cfg.given(key))
      throw ConfigError(cfg.item_loc(key, std::stoul(e.field.substr(key.size() + 1))), e.field, e.what());
    fail_at(cfg, key, e.what());
  } catch (const slurm::LaunchError& e) {
    fail_at(cfg, e.field, e.what());
  }
}

}  // namespace bert::harness::detail
