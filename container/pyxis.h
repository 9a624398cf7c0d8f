// pyxis (Slurm SPANK) container flags for srun: --container-image/-name/-mounts/-workdir/-env and the
// boolean switches. Values are validated here so a bad mount never reaches srun.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace bert::container {

// A bad value; `field` is the caller's name for it (e.g. the YAML key path "container.mounts[1]").
struct PyxisError : std::invalid_argument {
  PyxisError(std::string field_, const std::string& msg) : std::invalid_argument(msg), field(std::move(field_)) {}
  std::string field;
};

struct Mount {
  std::string src;    // absolute host path
  std::string dst;    // absolute container path ("" = same as src)
  std::string flags;  // pyxis flags joined with '+', e.g. "ro" or "ro+rprivate" ("" = none)
  std::string field;  // where it came from, for messages
};

struct PyxisOptions {
  std::string image;                 // squashfs path, docker://..., nvcr.io#repo/image:tag
  std::string image_field = "container.image";
  std::string name;                  // named container, reused by every step of the job
  std::vector<Mount> mounts;
  std::string workdir;
  std::vector<std::string> env;      // --container-env names (host value wins over the image's)
  bool mount_home = false;           // false -> --no-container-mount-home
  bool remap_root = false;           // --container-remap-root
  bool writable = false;             // --container-writable
};

// Throws PyxisError for a relative path, a ',' or ':' inside a path, an empty image or a bad name.
void validate(const PyxisOptions& o);

// Flags for the one-off step that imports the image on every node (--container-image + --container-name).
std::vector<std::string> import_flags(const PyxisOptions& o);

// Flags for a step that runs inside the named container (name, mounts, workdir, env, switches).
std::vector<std::string> run_flags(const PyxisOptions& o);

// "src:dst[:flags],..." as pyxis expects it.
std::string mounts_value(const std::vector<Mount>& mounts);

}  // namespace bert::container
