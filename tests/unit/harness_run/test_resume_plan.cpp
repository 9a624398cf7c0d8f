#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/plan/build_plan.h"
#include "harness/plan/print_plan.h"
#include "harness/run/run.h"
#include "harness/run/set_state.h"

using namespace bert::harness;
namespace fs = std::filesystem;

namespace {
struct OutDir {
  fs::path dir;
  OutDir() {
    std::string t = (fs::temp_directory_path() / "resume_plan_XXXXXX").string();
    dir = mkdtemp(t.data());
  }
  ~OutDir() { fs::remove_all(dir); }
  void write(const json& j) const { std::ofstream(dir / "plan.json") << j.dump(); }
};

Plan small_plan() {
  Plan p;
  p.launcher = "srun";
  p.mpi = "pmix";
  p.nodes.resize(1);
  p.per_node.argv = {"srun", "--nodes=1", "--ntasks=1", "--ntasks-per-node=1"};
  p.target_accuracy = 0.6;
  return p;
}
}  // namespace

TEST_CASE("--resume reads the recorded plan with its typed fields") {
  OutDir o;
  o.write(small_plan().to_json());
  Plan p = load_plan_for_resume(o.dir.string());
  CHECK(p.launcher == "srun");
  CHECK(p.mpi == "pmix");
  CHECK(p.per_node.argv.size() == 4);
  CHECK(p.target_accuracy == doctest::Approx(0.6));
}

TEST_CASE("--resume refuses a plan of an unknown launcher or one without the typed fields, naming the file") {
  OutDir o;
  json j = small_plan().to_json();
  j["launcher"] = "flux";
  o.write(j);
  CHECK_THROWS_WITH_AS(load_plan_for_resume(o.dir.string()),
                       ((o.dir / "plan.json").string() + ": launcher: unknown launcher 'flux' (known: local, srun, mpirun)").c_str(),
                       bert::UserError);
  j = small_plan().to_json();
  j.erase("trainer");
  o.write(j);
  const std::string not_a_plan = (o.dir / "plan.json").string() + ": not a plan this harness can read";
  CHECK_THROWS_WITH(load_plan_for_resume(o.dir.string()), doctest::Contains(not_a_plan.c_str()));
  CHECK_THROWS_WITH(load_plan_for_resume((o.dir / "none").string()), doctest::Contains("cannot read"));
}

TEST_CASE("--resume: the set's recorded seeds replace a rebuilt plan's, and the dry-run shows them") {
  OutDir o;
  BuildOptions bo;
  bo.bin_dir = "/b";
  bo.random_seed = [n = uint64_t{901}]() mutable { return n++; };  // what a rebuilt plan would draw again
  Plan p = build_plan(Config::from_text("topology: {synthetic: \"pack:1 numa:1 core:2 pu:1\"}\n"
                                        "benchmark: {data: {train_dir: /t, eval_dir: /e}}\n"
                                        "experiment: {nexp: 3, division: open}\n",
                                        "r.yaml", {}),
                      bo);
  REQUIRE(p.experiment.seeds == std::vector<uint64_t>{901, 902, 903});
  std::ostringstream fresh;
  print_dry_run(p, fresh);  // a new set: no numbers that the run would not use
  CHECK(fresh.str().find("seeds       random: drawn when the set starts, recorded in output/state.json, reused by --resume\n") !=
        std::string::npos);

  use_recorded_seeds(p, o.dir.string());  // no state.json yet: unchanged
  CHECK(p.experiment.seeds == std::vector<uint64_t>{901, 902, 903});
  SetState st;
  st.system = "s";
  st.datestamp = "d";
  st.nexp = 3;
  for (uint64_t seed : {11u, 22u, 33u}) {
    ExperimentRecord e;
    e.index = static_cast<int>(st.experiments.size()) + 1;
    e.seed = seed;
    st.experiments.push_back(e);
  }
  save_state((o.dir / "state.json").string(), st);
  use_recorded_seeds(p, o.dir.string());
  CHECK(p.experiment.seeds == std::vector<uint64_t>{11, 22, 33});
  CHECK(p.trainer_config["run"]["seed"] == 11);
  std::ostringstream resumed;
  print_dry_run(p, resumed);
  CHECK(resumed.str().find("seeds       random: 11,22,33 (recorded in " + (o.dir / "state.json").string() + ")\n") !=
        std::string::npos);
  CHECK(Plan::from_json(p.to_json()).experiment.seeds_recorded_in == (o.dir / "state.json").string());
}
