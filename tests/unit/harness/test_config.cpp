#include <doctest/doctest.h>

#include <initializer_list>
#include <set>
#include <string>

#include "container/runtime.h"
#include "harness/config/config.h"
#include "harness/config/did_you_mean.h"
#include "harness/config/schema.h"
#include "harness/launch/launcher.h"
#include "trainer/run_config_keys.h"
#include "test_helpers.h"

using namespace bert::harness;


namespace {
// Each YAML text, loaded as `file`, stops with its error: the whole message, or (whole false) a part of it.
struct LoadError {
  const char* yaml;
  const char* error;
  bool whole;
};
void check_load_errors(const char* file, std::initializer_list<LoadError> cases) {
  for (const LoadError& c : cases) {
    CAPTURE(c.yaml);
    const std::string msg = error_of([&] { Config::from_text(c.yaml, file); });
    if (c.whole)
      CHECK(msg == c.error);
    else
      CHECK(msg.find(c.error) != std::string::npos);
  }
}
}  // namespace

TEST_CASE("defaults come from the schema when a key is absent") {
  Config c = Config::from_text("nodes:\n  count: 2\n", "x.yaml");
  CHECK(c.integer("nodes.count") == 2);
  CHECK(c.str("launcher.type") == "local");
  CHECK(c.integer("experiment.nexp") == 10);
  CHECK(c.real("benchmark.target_accuracy") == doctest::Approx(0.72));
  CHECK_FALSE(c.given("launcher.type"));
  CHECK(c.given("nodes.count"));
  CHECK(c.loc("nodes.count").str() == "x.yaml:2:10");
}

TEST_CASE("malformed YAML names file, line and column") {
  std::string msg = error_of([] { Config::from_text("nodes:\n  count: [1, 2\n", "bad.yaml"); });
  CHECK(msg.rfind("bad.yaml:", 0) == 0);
  CHECK(msg.find("malformed YAML") != std::string::npos);
}

TEST_CASE("duplicate keys are errors") {
  std::string msg = error_of([] { Config::from_text("nodes:\n  count: 1\n  count: 2\n", "d.yaml"); });
  CHECK(msg == "d.yaml:3:3: count: duplicate key");
}

TEST_CASE("unknown key: did-you-mean within the group") {
  std::string msg = error_of([] { Config::from_text("launcher:\n  srun:\n    mpii: pmi2\n", "u.yaml"); });
  CHECK(msg == "u.yaml:3:5: launcher.srun: unknown key 'mpii'; did you mean 'launcher.srun.mpi'?");
}

TEST_CASE("unknown key: the right name in the wrong place") {
  std::string msg = error_of([] { Config::from_text("gres_every_step: true\n", "w.yaml"); });
  CHECK(msg.find("did you mean 'launcher.srun.gres_every_step'?") != std::string::npos);
  CHECK(msg.rfind("w.yaml:1:1: ", 0) == 0);
}

TEST_CASE("a misspelt extends is suggested") {
  CHECK(error_of([] { Config::from_text("extend: base.yaml\n", "x.yaml"); }) ==
        "x.yaml:1:1: unknown key 'extend'; did you mean 'extends'?");
}

TEST_CASE("unknown key without a near name lists the known ones") {
  std::string msg = error_of([] { Config::from_text("nodes:\n  zzzzzzzz: 1\n", "n.yaml"); });
  CHECK(msg.find("known here: count, gpus_per_node, min_count, ranks_per_node") != std::string::npos);
}

TEST_CASE("wrong types and impossible values: one error each, naming the place") {
  check_load_errors("t.yaml", {
      {"nodes:\n  count: eight\n", "t.yaml:2:10: nodes.count: must be an integer, got 'eight'", true},
      {"benchmark:\n  learning_rate: fast\n", "t.yaml:2:18: benchmark.learning_rate: must be a number, got 'fast'", true},
      {"container:\n  writable: maybe\n", "t.yaml:2:13: container.writable: must be true or false, got 'maybe'", true},
      {"nodes: 3\n", "nodes: must be a mapping", false},
      {"topology:\n  gpu_numa_map: 3\n", "t.yaml:2:17: topology.gpu_numa_map: must be a list of integers", true},
      {"topology:\n  gpu_numa_map: [0, x]\n", "t.yaml:2:21: topology.gpu_numa_map: must be an integer, got 'x'", true},
      {"env:\n  NCCL_X: [1]\n", "t.yaml:2:11: env.NCCL_X: must be a string", true},
      // impossible values are range errors
      {"nodes:\n  count: 0\n", "t.yaml:2:10: nodes.count: must be >= 1, got 0", true},
      {"benchmark:\n  batch_size: 0\n", "t.yaml:2:15: benchmark.batch_size: must be >= 1, got 0", true},
      {"benchmark:\n  target_accuracy: 1.0\n", "t.yaml:2:20: benchmark.target_accuracy: must be < 1, got 1.0", true},
      {"benchmark:\n  target_accuracy: 0\n", "t.yaml:2:20: benchmark.target_accuracy: must be > 0, got 0", true},
      {"benchmark:\n  lamb_beta_1: 1\n", "must be < 1", false},
      {"experiment:\n  nexp: -3\n", "must be >= 1", false},
      {"nodes:\n  gpus_per_node: many\n", "t.yaml:2:18: nodes.gpus_per_node: must be an integer or auto, got 'many'", true},
  });
}

TEST_CASE("enums suggest the closest choice") {
  CHECK(error_of([] { Config::from_text("binding:\n  cpu: exclusiv\n", "e.yaml"); }) ==
        "e.yaml:2:8: binding.cpu: 'exclusiv' is not one of exclusive, exclusive-nosmt, node, socket, none, map; did you mean 'exclusive'?");
}

TEST_CASE("gpus_per_node may be auto") {
  Config c = Config::from_text("nodes:\n  gpus_per_node: auto\n", "r.yaml");
  CHECK(c.is_auto("nodes.gpus_per_node"));
}

TEST_CASE("missing file") {
  std::string msg = error_of([] { Config::load("/nonexistent/dir/sys.yaml"); });
  CHECK(msg == "/nonexistent/dir/sys.yaml: cannot read '/nonexistent/dir/sys.yaml'");
}

TEST_CASE("extends: deep merge, relative to the including file, child wins, values keep their file") {
  TempDir t;
  t.write("common/base.yaml", "nodes:\n  count: 4\n  gpus_per_node: 8\nlauncher:\n  type: srun\n  srun:\n    mpi: pmix\n");
  std::string sys = t.write("sys.yaml", "extends: common/base.yaml\nlauncher:\n  srun:\n    mpi: pmi2\n");
  Config c = Config::load(sys);
  CHECK(c.integer("nodes.count") == 4);
  CHECK(c.integer("nodes.gpus_per_node") == 8);
  CHECK(c.str("launcher.type") == "srun");
  CHECK(c.str("launcher.srun.mpi") == "pmi2");
  CHECK(c.loc("nodes.count").file == (t.dir / "common/base.yaml").string());
  CHECK(c.loc("nodes.count").line == 2);
  CHECK(c.loc("launcher.srun.mpi").file == sys);
}

TEST_CASE("extends: a list of bases, later ones win") {
  TempDir t;
  t.write("a.yaml", "nodes:\n  count: 1\nexperiment:\n  nexp: 3\n");
  t.write("b.yaml", "nodes:\n  count: 2\n");
  Config c = Config::load(t.write("s.yaml", "extends: [a.yaml, b.yaml]\n"));
  CHECK(c.integer("nodes.count") == 2);
  CHECK(c.integer("experiment.nexp") == 3);
}

TEST_CASE("extends: a cycle names the chain") {
  TempDir t;
  t.write("a.yaml", "extends: b.yaml\n");
  t.write("b.yaml", "extends: c.yaml\n");
  t.write("c.yaml", "extends: a.yaml\n");
  std::string msg = error_of([&] { Config::load((t.dir / "a.yaml").string()); });
  CHECK(msg.find("c.yaml:1:10: extends: extends cycle: a.yaml -> b.yaml -> c.yaml -> a.yaml") != std::string::npos);
}

TEST_CASE("extends: a missing base points at the extends line") {
  TempDir t;
  std::string msg = error_of([&] { Config::load(t.write("s.yaml", "nodes:\n  count: 1\nextends: nothere.yaml\n")); });
  CHECK(msg.find("s.yaml:3:10: extends: cannot read") != std::string::npos);
}

TEST_CASE("errors in a base file name the base file") {
  TempDir t;
  t.write("base.yaml", "binding:\n  cpuu: node\n");
  std::string msg = error_of([&] { Config::load(t.write("s.yaml", "extends: base.yaml\n")); });
  CHECK(msg.find("base.yaml:2:3: binding: unknown key 'cpuu'; did you mean 'binding.cpu'?") != std::string::npos);
}

TEST_CASE("environment overrides: NEXP, DATADIR, EVALDIR, CHECKPOINTDIR, CONT, LOGDIR, WALLTIME, SLURM_MPI_TYPE") {
  Overrides ov;
  ov.env = {{"NEXP", "5"},         {"DATADIR", "/d"}, {"EVALDIR", "/e"},      {"CHECKPOINTDIR", "/c/m.h5"}, {"CONT", "nvcr.io#x/y:1"},
            {"LOGDIR", "/logs"},   {"WALLTIME", "90"}, {"WALLTIME_RUNANDTIME", "8"}, {"SLURM_MPI_TYPE", "pmi2"}, {"UNRELATED", "1"}};
  Config c = Config::from_text("experiment:\n  nexp: 10\n", "o.yaml", ov);
  CHECK(c.integer("experiment.nexp") == 5);
  CHECK(c.str("benchmark.data.train_dir") == "/d");
  CHECK(c.str("benchmark.data.eval_dir") == "/e");
  CHECK(c.str("benchmark.data.checkpoint") == "/c/m.h5");
  CHECK(c.str("container.image") == "nvcr.io#x/y:1");
  CHECK(c.str("experiment.output_dir") == "/logs");
  CHECK(c.str("experiment.job_walltime") == "90");
  CHECK(c.str("experiment.run_walltime") == "8");
  CHECK(c.str("launcher.srun.mpi") == "pmi2");
  CHECK(c.loc("experiment.nexp").str() == "environment variable NEXP");
}

TEST_CASE("environment overrides are validated like the file") {
  Overrides ov;
  ov.env = {{"NEXP", "zero"}};
  CHECK(error_of([&] { Config::from_text("", "o.yaml", ov); }) ==
        "environment variable NEXP: experiment.nexp: must be an integer, got 'zero'");
  ov.env = {{"SLURM_MPI_TYPE", "pmx"}};
  CHECK(error_of([&] { Config::from_text("", "o.yaml", ov); }).find("did you mean 'pmix'?") != std::string::npos);
  ov.env = {{"NEXP", ""}};  // empty = unset
  CHECK(Config::from_text("", "o.yaml", ov).integer("experiment.nexp") == 10);
}

TEST_CASE("--set is typed by the schema and wins over the environment") {
  Overrides ov;
  ov.env = {{"NEXP", "5"}};
  ov.sets = {"experiment.nexp=7", "topology.gpu_numa_map=[3, 3, 1, 1]", "env.NCCL_DEBUG=INFO", "container.writable=true"};
  Config c = Config::from_text("", "s.yaml", ov);
  CHECK(c.integer("experiment.nexp") == 7);
  CHECK(c.integers("topology.gpu_numa_map") == std::vector<long long>{3, 3, 1, 1});
  CHECK(c.string_map("env") == std::vector<std::pair<std::string, std::string>>{{"NCCL_DEBUG", "INFO"}});
  CHECK(c.flag("container.writable"));
}

TEST_CASE("--set errors") {
  auto with = [](std::string s) {
    Overrides ov;
    ov.sets = {std::move(s)};
    return error_of([&] { Config::from_text("", "s.yaml", ov); });
  };
  CHECK(with("nodes.count") == "--set nodes.count: expected key.path=value");
  CHECK(with("nodes.cout=2") == "--set nodes.cout=2: nodes: unknown key 'cout'; did you mean 'nodes.count'?");
  CHECK(with("nodes.count=two") == "--set nodes.count=two: nodes.count: must be an integer, got 'two'");
  CHECK(with("benchmark.batch_size=0") == "--set benchmark.batch_size=0: benchmark.batch_size: must be >= 1, got 0");
}

TEST_CASE("edit distance and closest") {
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(closest("exclusiv", {"node", "exclusive"}) == "exclusive");
  CHECK(closest("qqqqqq", {"node", "exclusive"}).empty());
}

TEST_CASE("schema table is consistent: unique paths, defaults valid for their type") {
  std::set<std::string> seen;
  for (const SchemaEntry& e : schema()) {
    CHECK_MESSAGE(seen.insert(e.path).second, e.path);
    CHECK_MESSAGE(!e.doc.empty(), e.path);
    if (e.type == ValueType::Enum) {
      bool ok = false;
      for (const auto& c : e.choices) ok = ok || c == e.def;
      CHECK_MESSAGE(ok, e.path);
    }
  }
  // Every default passes validation: an empty file validates and every accessor parses.
  Config c = Config::from_text("", "empty.yaml");
  CHECK(c.integer("launcher.master_port") == 29500);
}

TEST_CASE("the trainer's benchmark.* keys are schema rows made from the run-config key table") {
  int rows = 0;
  for (const bert::trainer::RunConfigKey& k : bert::trainer::run_config_keys()) {
    if (k.system_key.empty()) continue;
    ++rows;
    const SchemaEntry* e = schema_find(k.system_key);
    REQUIRE_MESSAGE(e != nullptr, k.system_key);
    CHECK(e->doc == k.doc);
    CHECK(e->range.describe() == k.range.describe());
    CHECK(e->def == (k.system_auto ? "auto" : k.def));
  }
  CHECK(rows == 33);
  CHECK(schema_find("benchmark.learning_rate")->def == "4e-4");
  CHECK(schema_find("benchmark.backend")->choices == std::vector<std::string>{"auto", "cpu", "cuda"});
  CHECK(schema_find("benchmark.precision")->choices == std::vector<std::string>{"auto", "fp32", "bf16", "fp8"});
}

TEST_CASE("launcher.type offers exactly the registered launchers") {
  CHECK(schema_find("launcher.type")->choices == bert::harness::launcher_names());
}

TEST_CASE("container.runtime offers exactly the registered container runtimes, pyxis by default") {
  CHECK(schema_find("container.runtime")->choices == bert::container::runtime_names());
  CHECK(schema_find("container.runtime")->def == "pyxis");
}
