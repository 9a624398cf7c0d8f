// --resume: the plan and the seeds a set's output directory recorded (run.h).
#include "harness/run/run.h"

#include <filesystem>
#include <fstream>

#include "common/user_error.h"
#include "harness/launch/launcher.h"
#include "harness/run/set_state.h"

namespace bert::harness {
namespace fs = std::filesystem;

Plan load_plan_for_resume(const std::string& outdir) {
  const std::string path = outdir + "/plan.json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot read (is " + outdir + " the output directory of a set?)");
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded()) throw std::runtime_error(path + ": not valid JSON");
  Plan plan;
  try {
    plan = Plan::from_json(j);
  } catch (const std::exception& e) {  // json::exception, or a word outside a setting's table
    throw std::runtime_error(path + ": not a plan this harness can read (written by another version?): " + e.what());
  }
  try {
    find_launcher(plan.launcher);
  } catch (const UserError& e) {
    throw UserError(Loc{path}, "launcher", e.message);
  }
  return plan;
}

void use_recorded_seeds(Plan& plan, const std::string& outdir) {
  const std::string path = outdir + "/state.json";
  if (!fs::exists(path)) return;
  const SetState st = load_state(path);
  if (st.nexp != plan.experiment.nexp) return;  // run_experiments names the mismatch
  plan.experiment.seeds.clear();
  for (const ExperimentRecord& e : st.experiments) plan.experiment.seeds.push_back(e.seed);
  plan.experiment.seeds_recorded_in = path;
  if (!plan.trainer_config.is_null() && !plan.experiment.seeds.empty())
    plan.trainer_config["run"]["seed"] = plan.experiment.seeds.front();
}

}  // namespace bert::harness
