#include "container/runtime.h"

namespace bert::container {

// One entry per runtime; each is defined in its own file.
const Runtime& pyxis_runtime();
const Runtime& enroot_runtime();
const Runtime& podman_runtime();
const Runtime& docker_runtime();
const Runtime& apptainer_runtime();

namespace {
const std::vector<const Runtime*>& all() {
  static const std::vector<const Runtime*> runtimes{&pyxis_runtime(), &enroot_runtime(), &podman_runtime(), &docker_runtime(),
                                                   &apptainer_runtime()};
  return runtimes;
}
}  // namespace

const Runtime* find_runtime(std::string_view name) {
  for (const Runtime* r : all())
    if (name == r->name()) return r;
  return nullptr;
}

std::vector<std::string> runtime_names() {
  std::vector<std::string> out;
  for (const Runtime* r : all()) out.emplace_back(r->name());
  return out;
}

}  // namespace bert::container
