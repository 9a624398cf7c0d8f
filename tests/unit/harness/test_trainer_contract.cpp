// The contract with the trainer: the run config every shipped system's plan writes loads through
// bert::trainer::load_run_config (keys, groups, types and the trainer's own checks).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "harness/plan/build_plan.h"
#include "plan_helpers.h"
#include "test_helpers.h"
#include "trainer/run_config.h"
#include "trainer/run_config_keys.h"

using namespace bert::harness;
namespace fs = std::filesystem;

TEST_CASE("the trainer loads the run config of every shipped system") {
  TempDir t;
  int count = 0;
  for (const auto& e : fs::directory_iterator(std::string(BERT_SOURCE_DIR) + "/systems")) {
    if (e.path().extension() != ".yaml") continue;
    ++count;
    INFO(e.path().filename().string());
    Plan p = shipped_plan(e.path().filename().string());
    std::string file = t.write(e.path().stem().string() + ".yaml", p.trainer_config.dump(2));
    bert::trainer::RunConfig rc;
    try {
      rc = bert::trainer::load_run_config(file);
    } catch (const std::exception& ex) {
      FAIL_CHECK(ex.what());
      continue;
    }
    CHECK(rc.batch_size == p.trainer_config["batch"]["batch_size"].get<int>());
    CHECK(rc.max_seq_length == p.trainer_config["data"]["max_seq_length"].get<int>());
    CHECK(rc.seed == p.experiment.seeds.front());
    CHECK(std::string(bert::trainer::backend_name(rc.backend)) == p.trainer_config["run"]["backend"].get<std::string>());
    CHECK(rc.submission_division == bert::enum_name(p.experiment.division, kDivisionNames));
    // One value per row of the key table, nothing else.
    size_t values = 0;
    for (const auto& [group, keys] : p.trainer_config.items()) values += keys.size();
    CHECK(values == bert::trainer::run_config_keys().size());
    for (const bert::trainer::RunConfigKey& k : bert::trainer::run_config_keys())
      CHECK_MESSAGE(p.trainer_config[k.group()].contains(k.key()), k.name);
  }
  CHECK(count >= 14);
}
