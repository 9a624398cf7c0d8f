// The runtimes that wrap each rank's command: podman/docker run (binding applied per rank), apptainer
// exec and enroot create/start, against their documented syntax (podman-run(1), docker run reference,
// apptainer-exec(1), enroot doc/cmd/{create,start}.md).
#include <doctest/doctest.h>

#include <algorithm>

#include "container/runtime.h"

using namespace bert::container;
using W = std::vector<std::string>;

namespace {
const Runtime& rt(const char* name) {
  const Runtime* r = find_runtime(name);
  REQUIRE(r != nullptr);
  return *r;
}
ContainerSpec spec(const char* image) {
  ContainerSpec o;
  o.image = image;
  o.name = "bert_7";
  o.mounts = {{"/d/train", "/data/train", "ro", "benchmark.data.train_dir"}, {"/out", "/results", "", "experiment.output_dir"}};
  o.workdir = "/results";
  return o;
}
std::string error_of(const Runtime& r, const ContainerSpec& o, const RankResources* rank = nullptr) {
  try {
    r.command_prefix(o, rank);
  } catch (const bert::UserError& e) {
    return e.field + ": " + e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("podman run: the rank's cpuset, mounts with ro, workdir, env by name, host network, read-only root") {
  const Runtime& p = rt("podman");
  CHECK(p.launcher() == nullptr);
  CHECK(p.binds_ranks());
  CHECK(p.setup_words(spec("bert:1")).empty());
  CHECK(p.launcher_flags(spec("bert:1")).empty());
  RankResources r{"2-3", "0", -1, {"RANK", "LOCAL_RANK"}};
  CHECK(p.command_prefix(spec("localhost/bert:1"), &r) ==
        W{"podman", "run", "--rm", "--network=host", "--ipc=host", "--read-only", "--cpuset-cpus=2-3", "--cpuset-mems=0",
          "--volume=/d/train:/data/train:ro", "--volume=/out:/results", "--workdir=/results", "--env=RANK", "--env=LOCAL_RANK",
          "localhost/bert:1"});
  ContainerSpec o = spec("bert:1");
  o.gpus = true;
  o.writable = true;
  o.mounts = {{"/ro", "", "ro+rprivate", "m"}};
  o.env = {"NCCL_DEBUG"};
  RankResources g{"", "", 5, {}};
  CHECK(p.command_prefix(o, &g) ==
        W{"podman", "run", "--rm", "--network=host", "--ipc=host", "--device=nvidia.com/gpu=5", "--volume=/ro:/ro:ro,rprivate",
          "--workdir=/results", "--env=NCCL_DEBUG", "bert:1"});
}

TEST_CASE("docker run: same words, GPUs through --gpus") {
  const Runtime& d = rt("docker");
  ContainerSpec o = spec("bert:1");
  o.gpus = true;
  RankResources r{"0,4", "1", 3, {}};
  W w = d.command_prefix(o, &r);
  CHECK(w.front() == "docker");
  CHECK(std::find(w.begin(), w.end(), "--gpus=device=3") != w.end());
  CHECK(std::find(w.begin(), w.end(), "--cpuset-cpus=0,4") != w.end());
  CHECK(std::find(w.begin(), w.end(), "--cpuset-mems=1") != w.end());
  CHECK(w.back() == "bert:1");
}

TEST_CASE("podman/docker: one prefix per rank, no home mount") {
  CHECK(error_of(rt("podman"), spec("bert:1")).starts_with("container.runtime: podman applies each rank's binding"));
  ContainerSpec o = spec("bert:1");
  o.mount_home = true;
  RankResources r;
  CHECK(error_of(rt("docker"), o, &r).starts_with("container.mount_home: docker mounts no home directory"));
}

TEST_CASE("apptainer exec: --nv, --no-home, --pwd, --bind src:dst[:ro], image last") {
  const Runtime& a = rt("apptainer");
  CHECK(a.launcher() == nullptr);
  CHECK(!a.binds_ranks());
  CHECK(a.setup_words(spec("/sif/bert.sif")).empty());
  ContainerSpec o = spec("/sif/bert.sif");
  o.gpus = true;
  o.mounts.push_back({"/dev/infiniband", "", "", "container.mount_infiniband"});
  CHECK(a.command_prefix(o, nullptr) == W{"apptainer", "exec", "--nv", "--no-home", "--pwd=/results",
                                          "--bind=/d/train:/data/train:ro", "--bind=/out:/results",
                                          "--bind=/dev/infiniband", "/sif/bert.sif"});
  o = spec("docker://nvcr.io/nvidia/pytorch:24.04-py3");
  o.mount_home = true;
  o.remap_root = true;
  o.writable = true;
  o.mounts.clear();
  o.workdir.clear();
  CHECK(a.command_prefix(o, nullptr) ==
        W{"apptainer", "exec", "--fakeroot", "--writable-tmpfs", "docker://nvcr.io/nvidia/pytorch:24.04-py3"});
  o.mounts = {{"/a", "/b", "ro+rprivate", "container.mounts[0]"}};
  CHECK(error_of(a, o) == "container.mounts[0]: apptainer bind options are 'ro' or 'rw', not 'ro+rprivate'");
}

TEST_CASE("enroot: create --force --name from a squashfs file, start with fstab mounts, env, switches") {
  const Runtime& e = rt("enroot");
  CHECK(e.launcher() == nullptr);
  CHECK(!e.binds_ranks());
  CHECK(e.setup_words(spec("/sq/bert.sqsh")) == W{"enroot", "create", "--force", "--name", "bert_7", "/sq/bert.sqsh"});
  ContainerSpec o = spec("/sq/bert.sqsh");
  o.env = {"NCCL_DEBUG"};
  CHECK(e.command_prefix(o, nullptr) == W{"enroot", "start", "--mount", "/d/train:/data/train:none:x-create=auto,rbind,ro",
                                          "--mount", "/out:/results:none:x-create=auto,rbind", "--env", "NCCL_DEBUG", "bert_7"});
  o = spec("/sq/bert.sqsh");
  o.mounts.clear();
  o.mount_home = true;
  o.remap_root = true;
  o.writable = true;
  CHECK(e.command_prefix(o, nullptr) == W{"env", "ENROOT_MOUNT_HOME=yes", "enroot", "start", "--root", "--rw", "bert_7"});
  CHECK(error_of(e, spec("nvcr.io#nvidia/pytorch:24.04-py3")).starts_with("container.image: enroot creates containers from a squashfs file"));
  o = spec("/sq/bert.sqsh");
  o.name = "";
  CHECK(error_of(e, o).starts_with("container.name:"));
}

TEST_CASE("every runtime refuses a relative mount at its field") {
  for (const std::string& n : runtime_names()) {
    ContainerSpec o = spec("/sq/bert.sqsh");
    o.mounts = {{"rel", "/x", "", "container.mounts[0]"}};
    CHECK_THROWS_AS(find_runtime(n)->validate(o), bert::UserError);
  }
}
