#include <doctest/doctest.h>

#include "container/runtime.h"

using namespace bert::container;

namespace {
const Runtime& pyxis() {
  const Runtime* r = find_runtime("pyxis");
  REQUIRE(r != nullptr);
  return *r;
}
ContainerSpec base() {
  ContainerSpec o;
  o.image = "/mnt/sqsh/bert.sqsh";
  o.name = "bert_123";
  return o;
}
std::string field_of(const ContainerSpec& o) {
  try {
    pyxis().validate(o);
  } catch (const bert::UserError& e) {
    return e.field + ": " + e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("pyxis is found by name, enters through srun and wraps nothing") {
  CHECK(std::string(pyxis().name()) == "pyxis");
  CHECK(std::string(pyxis().launcher()) == "srun");
  CHECK(!pyxis().binds_ranks());
  CHECK(pyxis().command_prefix(base(), nullptr).empty());
  CHECK(find_runtime("no-such-runtime") == nullptr);
  CHECK(runtime_names() == std::vector<std::string>{"pyxis", "enroot", "podman", "docker", "apptainer"});
  for (const std::string& n : runtime_names()) CHECK(find_runtime(n)->name() == n);
}

TEST_CASE("import flags: image + name") {
  CHECK(pyxis().setup_words(base()) == std::vector<std::string>{"--container-image=/mnt/sqsh/bert.sqsh", "--container-name=bert_123"});
  ContainerSpec o = base();
  o.image = "nvcr.io#nvidia/pytorch:24.04-py3";
  CHECK(pyxis().setup_words(o)[0] == "--container-image=nvcr.io#nvidia/pytorch:24.04-py3");
  o.image = "docker://ubuntu:22.04";
  CHECK_NOTHROW(pyxis().validate(o));
}

TEST_CASE("run flags: mounts, workdir, env, switches") {
  ContainerSpec o = base();
  o.mounts = {{"/data/a", "/workspace/data", "", "m0"}, {"/dev/infiniband", "", "", "m1"}, {"/ro", "/ro_in", "ro+rprivate", "m2"}};
  o.workdir = "/workspace/bert";
  o.env = {"MASTER_ADDR", "MASTER_PORT"};
  o.remap_root = true;
  o.writable = true;
  CHECK(pyxis().launcher_flags(o) == std::vector<std::string>{"--container-name=bert_123",
                                                 "--container-mounts=/data/a:/workspace/data,/dev/infiniband,/ro:/ro_in:ro+rprivate",
                                                 "--container-workdir=/workspace/bert",
                                                 "--container-env=MASTER_ADDR,MASTER_PORT",
                                                 "--no-container-mount-home",
                                                 "--container-remap-root",
                                                 "--container-writable"});
  o = base();
  o.mount_home = true;
  CHECK(pyxis().launcher_flags(o) == std::vector<std::string>{"--container-name=bert_123"});
}

TEST_CASE("mount validation names the field") {
  ContainerSpec o = base();
  o.mounts = {{"data/rel", "/x", "", "benchmark.data.train_dir"}};
  CHECK(field_of(o) == "benchmark.data.train_dir: mount source path 'data/rel' is not absolute");
  o.mounts = {{"/a,b", "/x", "", "container.mounts[0]"}};
  CHECK(field_of(o) == "container.mounts[0]: mount source path '/a,b' contains ',', which container runtimes use as a separator in their mount syntax");
  o.mounts = {{"/a", "/x:y", "", "container.mounts[1]"}};
  CHECK(field_of(o).starts_with("container.mounts[1]: mount destination path '/x:y' contains ':'"));
  o.mounts = {{"/a", "/b", "RO;x", "container.mounts[2]"}};
  CHECK(field_of(o).starts_with("container.mounts[2]: mount flags"));
  o.mounts = {{"", "/b", "", "experiment.output_dir"}};
  CHECK(field_of(o) == "experiment.output_dir: mount source path is empty");
}

TEST_CASE("image, name, workdir and env validation") {
  ContainerSpec o = base();
  o.image = "";
  CHECK(field_of(o) == "container.image: container image is empty");
  o.image = "a b";
  CHECK(field_of(o).starts_with("container.image:"));
  o = base();
  o.name = "x:y";
  CHECK(field_of(o).starts_with("container.name:"));
  o = base();
  o.workdir = "relative";
  CHECK(field_of(o) == "container.workdir: workdir path 'relative' is not absolute");
  o = base();
  o.env = {"BAD-NAME"};
  CHECK(field_of(o) == "container.env: 'BAD-NAME' is not an environment variable name");
}
