#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "harness/run/run.h"

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
