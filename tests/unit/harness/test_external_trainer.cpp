#include <doctest/doctest.h>

#include <algorithm>

#include "harness/plan/build_plan.h"
#include "plan_helpers.h"
#include "test_helpers.h"

using namespace bert::harness;

namespace {

// Open division: the closed-division rules have their own tests (test_closed_division.cpp).
Plan plan_of(const std::string& yaml, std::vector<std::string> sets = {}) {
  sets.insert(sets.begin(), "experiment.division=open");
  return plan_from(yaml, "p.yaml", std::move(sets), {}, "/opt/bert/bin");
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// One node, 2 sockets x 4 cores, 4 GPUs, srun with a container running NVIDIA's implementation.
const char* kNvidia = R"(
nodes: {count: 1, gpus_per_node: 4}
topology:
  synthetic: "pack:2 numa:1 core:4 pu:1"
  gpu_numa_map: [0, 0, 1, 1]
launcher: {type: srun}
container: {image: /c/bert.sqsh}
binding: {apply: launcher}
trainer:
  kind: external
  profile: nvidia-pytorch
  env: {EXTRA_PARAMS: "--pad_fmha --packed_samples", INIT_LOSS_SCALE: "1024.0"}
benchmark:
  batch_size: 24
  gradient_accumulation_steps: 2
  learning_rate: 0.00096
  data: {train_dir: /d/packed, eval_dir: /d/eval, checkpoint: /d/phase1/model.ckpt-28252.pt}
experiment: {nexp: 2, output_dir: /out}
)";

}  // namespace

TEST_CASE("external trainer: the profile's argv, mounts, path names and hyperparameter variables") {
  Plan p = plan_of(kNvidia);
  CHECK(p.trainer_run.kind == TrainerKind::External);
  CHECK(p.trainer_run.profile == "nvidia-pytorch");
  CHECK(p.trainer_run.seed_env == "SEED");
  CHECK(p.trainer.argv == std::vector<std::string>{"slurm2pytorch", "./run_and_time.sh"});  // no bind: the launcher binds
  const auto& env = p.trainer.env;
  CHECK(env.at("BATCHSIZE") == "48");  // per GPU per optimizer step = batch x accumulation
  CHECK(env.at("GRADIENT_STEPS") == "2");
  CHECK(env.at("LR") == "0.00096");    // as written
  CHECK(env.at("DGXNGPU") == "4");
  CHECK(env.at("DGXNNODES") == "1");
  CHECK(env.at("DATADIR_PHASE2") == "/workspace/data_phase2");
  CHECK(env.at("CHECKPOINTDIR_PHASE1") == "/workspace/phase1");
  CHECK(env.at("EVALDIR") == "/workspace/evaldata");
  CHECK(env.at("NEXP") == "2");
  CHECK(env.at("PHASE") == "2");
  CHECK(env.at("EXTRA_PARAMS") == "--pad_fmha --packed_samples");
  CHECK(env.count("OPT_LAMB_BETA_1") == 0);  // left at the default: not passed, run_and_time.sh has its own
  CHECK(p.launch.env.at("BATCHSIZE") == "48");
  CHECK(has(p.launch.argv, "--container-workdir=/workspace/bert"));
  CHECK(has(p.launch.argv, "--container-mounts=/d/packed:/workspace/data_phase2:ro,/d/eval:/workspace/evaldata:ro,"
                           "/d/phase1:/workspace/phase1:ro,/out:/results"));
  CHECK(p.launch.argv.back() == "./run_and_time.sh");
}

TEST_CASE("binding.apply launcher: srun binds each local rank with masks; bind: our wrapper; trainer: neither") {
  Plan p = plan_of(kNvidia);
  CHECK(has(p.launch.argv, "--cpu-bind=mask_cpu:0x3,0xc,0x30,0xc0"));
  CHECK(has(p.launch.argv, "--mem-bind=mask_mem:0x1,0x1,0x2,0x2"));
  CHECK(!has(p.launch.argv, "--cpu-bind=none"));
  Plan t = plan_of(kNvidia, {"binding.apply=trainer"});
  CHECK(has(t.launch.argv, "--cpu-bind=none"));
  CHECK(t.binding.apply == BindingApply::Trainer);
  CHECK(error_of([] { plan_of(kNvidia, {"binding.apply=bind"}); }).find("binding.apply") != std::string::npos);
}

TEST_CASE("binding.apply launcher: numactl per rank locally, an Open MPI rankfile under mpirun") {
  const std::string local = R"(
nodes: {count: 1, gpus_per_node: 0, ranks_per_node: 2}
topology: {synthetic: "pack:2 numa:1 core:2 pu:1"}
binding: {apply: launcher, unit: socket}
benchmark: {data: {train_dir: /d/t, eval_dir: /d/e}}
)";
  Plan p = plan_of(local);
  REQUIRE(p.nodes.front().ranks.size() == 2);
  CHECK(p.nodes.front().ranks[1].command_prefix == std::vector<std::string>{"numactl", "--physcpubind=2-3", "--membind=1"});
  CHECK(p.trainer.argv.front() == "/opt/bert/bin/trainer");
  Plan m = plan_of(local, {"launcher.type=mpirun", "launcher.mpirun.hosts=[h1]", "experiment.output_dir=/o"});
  REQUIRE(m.files.count("/o/rankfile") == 1);
  CHECK(m.files.at("/o/rankfile") == "rank 0=h1 slot=0-1\nrank 1=h1 slot=2-3\n");
  CHECK(has(m.launch.argv, "--rankfile"));
  CHECK(!has(m.launch.argv, "--bind-to"));
}

TEST_CASE("trainer keys: errors name the key") {
  const std::string data = "benchmark: {data: {train_dir: /t, eval_dir: /e}}\n";
  auto err = [&](const std::string& trainer) { return error_of([&] { plan_of(trainer + data); }); };
  CHECK(err("trainer: {kind: external}\n").find("trainer.argv") != std::string::npos);
  CHECK(err("trainer: {kind: external, profile: nope, argv: [x]}\n").find("nvidia-pytorch") != std::string::npos);
  CHECK(err("trainer: {argv: [x]}\n").find("only for trainer.kind external") != std::string::npos);
  CHECK(err("trainer: {kind: external, argv: [x], log: {source: file}}\n").find("trainer.log.file") != std::string::npos);
}

TEST_CASE("plan.json round-trips the trainer, binding.apply, rank prefixes and files") {
  Plan p = plan_of(kNvidia);
  Plan q = Plan::from_json(p.to_json());
  CHECK(q.to_json() == p.to_json());
  CHECK(q.trainer_run.profile == "nvidia-pytorch");
  CHECK(q.binding.apply == BindingApply::Launcher);
}

TEST_CASE("external trainer on bare metal: host paths in its variables, trainer.workdir as the launch's cwd") {
  const std::string yaml = R"(
nodes: {count: 1, gpus_per_node: 0, ranks_per_node: 1}
topology: {synthetic: "pack:1 numa:1 core:2 pu:1"}
trainer:
  kind: external
  argv: [./run.sh, --fast]
  workdir: /opt/impl
  log: {source: file, file: "logs/run{i}.txt"}
benchmark: {data: {train_dir: /d/t, eval_dir: /d/e, checkpoint: /d/c/model.h5}}
experiment: {output_dir: /o}
)";
  Plan p = plan_of(yaml);
  CHECK(p.trainer_run.profile == "generic");
  CHECK(p.launch.cwd == "/opt/impl");
  CHECK(p.trainer.argv == std::vector<std::string>{"/opt/bert/bin/bind", "--plan", "/o/plan.json", "--", "./run.sh", "--fast"});
  CHECK(p.trainer.env.at("DATADIR") == "/d/t");
  CHECK(p.trainer.env.at("CHECKPOINTDIR") == "/d/c/model.h5");  // the harness's own name: the file
  CHECK(p.trainer.env.at("LOGDIR") == "/o");
  CHECK(p.trainer_run.log_source == LogSource::File);
  CHECK(p.trainer_run.log_file == "logs/run{i}.txt");
  CHECK(p.launch.shell().rfind("cd /opt/impl && ", 0) == 0);
  CHECK(error_of([&] { plan_of(yaml, {"trainer.log.file=../x"}); }).find("trainer.log.file") != std::string::npos);
  // a glob, and the implementation's name of the output folder (the profile's results mount)
  CHECK(plan_of(yaml, {"trainer.log.file=/results/logs/*_{i}.log"}).trainer_run.log_file == "logs/*_{i}.log");
  CHECK(error_of([&] { plan_of(yaml, {"trainer.log.file=/var/log/x.log"}); }).find("under /results/") != std::string::npos);
  CHECK(error_of([&] { plan_of(yaml, {"trainer.log.file=/results/"}); }).find("names a folder") != std::string::npos);
}
