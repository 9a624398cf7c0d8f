#include <doctest/doctest.h>

#include "harness/plan/build_plan.h"
#include "harness/plan/seeds.h"
#include "results/check.h"
#include "test_helpers.h"

using namespace bert::harness;

namespace {

BuildOptions fixed_options() {
  BuildOptions o;
  o.bin_dir = "/opt/bert/bin";
  o.random_seed = [n = uint64_t{100}]() mutable { return n++; };
  return o;
}

// Open division: the closed-division rules have their own tests (test_closed_division.cpp).
Plan plan_of(const std::string& yaml, std::vector<std::string> sets = {}, BuildOptions o = fixed_options()) {
  Overrides ov;
  ov.sets = {"experiment.division=open"};
  ov.sets.insert(ov.sets.end(), sets.begin(), sets.end());
  return build_plan(Config::from_text(yaml, "p.yaml", ov), o);
}


// Two 2-socket nodes, 4 GPUs (2 per socket), mpirun over hosts a and b.
const char* kTwoNodes = R"(
nodes: {count: 2, gpus_per_node: 4}
topology:
  synthetic: "pack:2 numa:1 core:4 pu:2"
  gpu_numa_map: [0, 0, 1, 1]
launcher:
  type: mpirun
  mpirun: {hosts: [a, b]}
benchmark:
  data: {train_dir: /d/train, eval_dir: /d/eval}
experiment: {nexp: 3, seed_policy: "sequence:40"}
env: {NCCL_DEBUG: WARN}
)";

}  // namespace

TEST_CASE("shell quoting is POSIX-safe") {
  CHECK(shell_quote("plain/path-1.0,x:y=z") == "plain/path-1.0,x:y=z");
  CHECK(shell_quote("") == "''");
  CHECK(shell_quote("a b") == "'a b'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  CHECK(shell_quote("$(rm -rf /)") == "'$(rm -rf /)'");
  CHECK(shell_quote("a;b|c&d") == "'a;b|c&d'");
  CHECK(shell_quote("nvcr.io#nvidia/pytorch:24.04") == "'nvcr.io#nvidia/pytorch:24.04'");
  Command c;
  c.argv = {"sh", "-c", "sync && echo 'x'"};
  c.env = {{"A", "1 2"}, {"B", "ok"}};
  CHECK(c.shell() == "A='1 2' B=ok sh -c 'sync && echo '\\''x'\\'''");
}

TEST_CASE("ranks: global rank, GPU and rank environment on every node") {
  Plan p = plan_of(kTwoNodes);
  CHECK(p.num_nodes == 2);
  CHECK(p.ranks_per_node == 4);
  CHECK(p.world_size == 8);
  REQUIRE(p.nodes.size() == 2);
  CHECK(p.nodes[0].hostname == "a");
  CHECK(p.nodes[1].hostname == "b");
  const RankPlan& r = p.nodes[1].ranks[2];
  CHECK(r.global_rank == 6);
  CHECK(r.node_index == 1);
  CHECK(r.local_rank == 2);
  CHECK(r.binding.gpu == 2);
  CHECK(r.binding.mems == "1");
  CHECK(r.env.at("RANK") == "6");
  CHECK(r.env.at("WORLD_SIZE") == "8");
  CHECK(r.env.at("LOCAL_RANK") == "2");
  CHECK(r.env.at("LOCAL_WORLD_SIZE") == "4");
  CHECK(r.env.at("NODE_RANK") == "1");
  CHECK(r.env.at("MASTER_ADDR") == "a");
  CHECK(r.env.at("MASTER_PORT") == "29500");
  CHECK(p.env.at("NCCL_DEBUG") == "WARN");
}

TEST_CASE("mpirun: launch line, env forwarded with -x, cache clear one per node") {
  Plan p = plan_of(kTwoNodes);
  const auto& a = p.launch.argv;
  REQUIRE(a.size() > 10);
  CHECK(a[0] == "mpirun");
  CHECK(p.launch.shell().find("-np 8 --map-by ppr:4:node --bind-to none --host a:4,b:4") != std::string::npos);
  CHECK(p.launch.shell().find("-x NCCL_DEBUG=WARN") != std::string::npos);
  CHECK(p.launch.shell().find("-x MASTER_ADDR=a") != std::string::npos);
  CHECK(p.launch.shell().ends_with(
      "/opt/bert/bin/bind --plan output/plan.json -- /opt/bert/bin/trainer-cuda --config output/run.yaml"));  // GPU ranks
  CHECK(p.cache_clear.shell().starts_with("NCCL_DEBUG=WARN mpirun -np 2 --map-by ppr:1:node --bind-to none --host a:1,b:1"));
  CHECK(p.launch.env == std::map<std::string, std::string>{{"NCCL_DEBUG", "WARN"}});  // mpirun's own environment
  CHECK(p.cache_clear.shell().ends_with("--tag-output sh -c 'if sync && /sbin/sysctl vm.drop_caches=3; then echo cache_clear_ok; "
                                        "else echo cache_clear_failed; exit 1; fi'"));
  CHECK(p.plan_file == "output/plan.json");
  CHECK(p.run_config_file == "output/run.yaml");
}

TEST_CASE("srun + pyxis: gres on every step, container import in setup, mounts, sudo cache clear") {
  Plan p = plan_of(kTwoNodes, {"launcher.type=srun", "launcher.mpirun.hosts=[]", "launcher.srun.mpi=pmi2",
                               "launcher.srun.gres_every_step=true", "launcher.srun.time_per_run=12",
                               "container.image=/sq/bert.sqsh", "experiment.output_dir=/out",
                               "experiment.cache_clear_sudo=true", "container.mount_infiniband=true",
                               "container.remap_root=true"});
  REQUIRE(p.setup.size() == 1);
  CHECK(p.setup[0].shell() ==
        "srun --nodes=2 --ntasks=2 --ntasks-per-node=1 --gres=gpu:4 --container-image=/sq/bert.sqsh --container-name=bert true");
  CHECK(p.cache_clear.shell() ==
        "NCCL_DEBUG=WARN srun --nodes=2 --ntasks=2 --ntasks-per-node=1 --gres=gpu:4 -l sh -c 'if sync && sudo -n "
        "/sbin/sysctl vm.drop_caches=3; then echo cache_clear_ok; else echo cache_clear_failed; exit 1; fi'");
  CHECK(p.launch.shell() ==
        "NCCL_DEBUG=WARN srun -l --mpi=pmi2 --nodes=2 --ntasks=8 --ntasks-per-node=4 --gres=gpu:4 --kill-on-bad-exit=1 --cpu-bind=none --time=12 "
        "--container-name=bert --container-mounts=/d/train:/data/train:ro,/d/eval:/data/eval:ro,/out:/results,"
        "/dev/infiniband:/dev/infiniband --container-workdir=/workspace/bert --no-container-mount-home "
        "--container-remap-root /usr/local/bin/bind --plan /results/plan.json -- /usr/local/bin/trainer-cuda --config /results/run.yaml");
  CHECK(p.trainer_config["data"]["train_dir"] == "/data/train");
  CHECK(p.trainer_config["data"]["eval_file"] == "/data/eval");
  CHECK(p.nodes[1].hostname == "slurm-node-1");
}

TEST_CASE("local + podman: each rank its own run line with its cpuset, rendezvous and data through the mounts") {
  const char* yaml = R"(
topology: {synthetic: "pack:2 numa:1 core:2 pu:1"}
container: {image: "localhost/bert:1", runtime: podman, workdir: /results, bin_dir: /usr/bin}
benchmark: {data: {train_dir: /d/train, eval_dir: /d/eval}}
experiment: {output_dir: /o}
env: {OMP_NUM_THREADS: "2"}
)";
  Plan p = plan_of(yaml);
  CHECK(p.container.runtime == "podman");
  REQUIRE(p.nodes[0].ranks.size() == 2);
  const std::string common =
      "podman run --rm --network=host --ipc=host --read-only --cpuset-cpus={} --cpuset-mems={} "
      "--volume=/d/train:/data/train:ro --volume=/d/eval:/data/eval:ro --volume=/o:/results --workdir=/results "
      "--env=OMP_NUM_THREADS --env=LOCAL_RANK --env=LOCAL_WORLD_SIZE --env=MASTER_ADDR --env=MASTER_PORT --env=NODE_RANK "
      "--env=RANK --env=WORLD_SIZE localhost/bert:1";
  for (const RankPlan& r : p.nodes[0].ranks) {
    std::string want = common;
    want.replace(want.find("{}"), 2, r.binding.cpus);
    want.replace(want.find("{}"), 2, r.binding.mems);
    CHECK(Command{r.command_prefix, {}, {}, {}}.shell() == want);
  }
  CHECK(p.nodes[0].ranks[0].binding.cpus != p.nodes[0].ranks[1].binding.cpus);
  CHECK(p.launch.shell() == "/usr/bin/bind --plan /results/plan.json -- /usr/bin/trainer --config /results/run.yaml");
  CHECK(p.setup.empty());  // the data is given; podman needs no import step
  CHECK(p.rendezvous_dir == "/o/rendezvous");
  CHECK(p.trainer_config["run"]["rendezvous_dir"] == "/results/rendezvous");
  Plan q = Plan::from_json(p.to_json());
  CHECK(q.nodes[0].ranks[1].command_prefix == p.nodes[0].ranks[1].command_prefix);

  Plan runtime_bound = plan_of(yaml, {"binding.apply=runtime"});
  CHECK(runtime_bound.launch.shell() == "/usr/bin/trainer --config /results/run.yaml");  // no bind wrapper
  CHECK(runtime_bound.nodes[0].ranks[1].command_prefix == p.nodes[0].ranks[1].command_prefix);
  CHECK(error_of([&] { plan_of(kTwoNodes, {"binding.apply=runtime"}); }).find("binding.apply: runtime: only a container runtime") !=
        std::string::npos);

  CHECK(error_of([&] { plan_of(yaml, {"launcher.type=mpirun", "launcher.mpirun.hosts=[a]"}); }).ends_with(
      "container.runtime: containers are started through podman, which needs launcher.type local (it binds each rank the harness "
      "starts) (got mpirun)"));
}

TEST_CASE("srun + apptainer: one prefix for every rank, bound by srun") {
  Plan p = plan_of(kTwoNodes, {"launcher.type=srun", "launcher.mpirun.hosts=[]", "container.image=/sif/bert.sif",
                               "container.runtime=apptainer", "experiment.output_dir=/out"});
  CHECK(p.setup.empty());
  CHECK(p.launch.shell().find("--cpu-bind=none apptainer exec --nv --no-home --pwd=/workspace/bert --bind=/d/train:/data/train:ro "
                              "--bind=/d/eval:/data/eval:ro --bind=/out:/results /sif/bert.sif /usr/local/bin/bind") != std::string::npos);
  for (const RankPlan& r : p.nodes[1].ranks) CHECK(r.command_prefix.empty());
}

TEST_CASE("srun: the container name carries the job id inside an allocation") {
  BuildOptions o = fixed_options();
  o.env = {{"SLURM_JOB_ID", "4242"}, {"MLPERF_SLURM_FIRSTNODE", "gpu01"}};
  Plan p = plan_of(kTwoNodes, {"launcher.type=srun", "launcher.mpirun.hosts=[]", "container.image=docker://nvcr.io#nvidia/x:1"}, o);
  CHECK(p.setup[0].shell().find("--container-name=bert_4242") != std::string::npos);
  CHECK(p.setup[0].shell().find("'--container-image=docker://nvcr.io#nvidia/x:1'") != std::string::npos);
  CHECK(p.nodes[0].ranks[0].env.at("MASTER_ADDR") == "gpu01");
}

TEST_CASE("srun inside an allocation: real node names from SLURM_JOB_NODELIST, rank 0's node is MASTER_ADDR") {
  BuildOptions o = fixed_options();
  o.env = {{"SLURM_JOB_NODELIST", "gpu[07-08]"}};
  Plan p = plan_of(kTwoNodes, {"launcher.type=srun"}, o);
  CHECK(p.nodes[0].hostname == "gpu07");
  CHECK(p.nodes[1].hostname == "gpu08");
  CHECK(p.nodes[1].ranks[0].env.at("MASTER_ADDR") == "gpu07");
  // An allocation of another size is an error before any step: fewer nodes, or more left idle.
  o.env = {{"SLURM_JOB_NODELIST", "gpu07"}, {"SLURM_JOB_ID", "41"}};
  CHECK(error_of([&] { plan_of(kTwoNodes, {"launcher.type=srun"}, o); }) ==
        "p.yaml:2:16: nodes.count: 2 node(s) but this Slurm job 41 has 1 (gpu07): submit with sbatch --nodes=2, or set "
        "nodes.count to 1");
  o.env = {{"SLURM_JOB_NODELIST", "gpu[07-09]"}};
  CHECK(error_of([&] { plan_of(kTwoNodes, {"launcher.type=srun"}, o); }) ==
        "p.yaml:2:16: nodes.count: 2 node(s) but this Slurm job has 3 (gpu[07-09]): submit with sbatch --nodes=2, or set "
        "nodes.count to 3");
}

TEST_CASE("local launcher: bare bind + trainer, rank env, rendezvous dir, synthetic data setup") {
  Plan p = plan_of(R"(
topology: {synthetic: "pack:2 numa:1 core:2 pu:1"}
binding: {unit: socket}
benchmark:
  model: tiny
  vocab_size: 1024
  max_seq_length: 128
  synthetic: {shards: 2, samples_per_shard: 64, eval_samples: 32, topics: 8}
experiment: {nexp: 2, cache_clear: "off", output_dir: "out dir"}
)");
  CHECK(p.launcher == "local");
  CHECK(p.world_size == 2);
  CHECK(p.nodes[0].hostname == "localhost");
  CHECK(p.nodes[0].ranks[1].env.at("MASTER_ADDR") == "127.0.0.1");
  CHECK(p.cache_clear.argv.empty());
  CHECK(p.launch.shell() == "/opt/bert/bin/bind --plan 'out dir/plan.json' -- /opt/bert/bin/trainer --config 'out dir/run.yaml'");
  REQUIRE(p.setup.size() == 1);
  CHECK(p.setup[0].shell() ==
        "/opt/bert/bin/bert-data synth --out 'out dir/data' --format varlength --shards 2 --samples-per-shard 64 "
        "--eval-samples 32 --vocab 1024 --seq-len 128 --max-pred 76 --seed 1234 --topics 8");
  CHECK(p.setup[0].creates == "out dir/data");
  CHECK(p.trainer_config["data"]["train_dir"] == "out dir/data/train");
  CHECK(p.trainer_config["run"]["rendezvous_dir"] == "out dir/rendezvous");
  CHECK(p.trainer_config["run"]["backend"] == "cpu");
  CHECK(p.trainer_config["model"]["size"] == "tiny");
}

TEST_CASE("seeds are resolved per experiment and recorded") {
  CHECK(plan_of(kTwoNodes).experiment.seeds == std::vector<uint64_t>{40, 41, 42});
  CHECK(resolve_seeds(parse_seed_policy("fixed:7"), 3, {}) == std::vector<uint64_t>{7, 7, 7});
  auto r = resolve_seeds(parse_seed_policy("random"), 4, [n = uint64_t{0}]() mutable { return (n++) / 2; });  // repeats are skipped
  CHECK(r == std::vector<uint64_t>{0, 1, 2, 3});
  CHECK_THROWS_AS(parse_seed_policy("fixed:"), std::invalid_argument);
  CHECK_THROWS_AS(parse_seed_policy("lucky"), std::invalid_argument);
  CHECK(parse_seed_policy("sequence:40").word() == "sequence:40");
  CHECK(error_of([] { plan_of(kTwoNodes, {"experiment.seed_policy=sequence:x"}); }) ==
        "--set experiment.seed_policy=sequence:x: experiment.seed_policy: 'sequence:x': expected sequence:<non-negative integer>");
  CHECK(plan_of(kTwoNodes, {"experiment.seed_policy=fixed:3"}).warnings.empty());  // open division: allowed
}

TEST_CASE("plan JSON round-trips") {
  Plan p = plan_of(kTwoNodes, {"launcher.type=srun", "launcher.mpirun.hosts=[]", "container.image=/sq/b.sqsh", "experiment.output_dir=/o"});
  json j = p.to_json();
  Plan q = Plan::from_json(j);
  CHECK(q.to_json() == j);
  CHECK(j["nodes"][1]["ranks"][3]["global_rank"] == 7);
  CHECK(j["nodes"][1]["ranks"][3]["binding"]["gpu"] == 3);
  CHECK(j["launch"]["shell"] == p.launch.shell());
  CHECK(j["experiment"]["seeds"].size() == 3);
}

TEST_CASE("the Plan's typed fields: launcher prefixes, trainer command, resolved values; round-tripped by plan.json") {
  Plan p = plan_of(kTwoNodes, {"launcher.type=srun", "launcher.mpirun.hosts=[]", "launcher.srun.mpi=pmi2",
                               "container.image=/sq/b.sqsh", "experiment.output_dir=/o", "benchmark.target_accuracy=0.6"});
  CHECK(p.mpi == "pmi2");
  CHECK(p.per_node.shell() == "NCCL_DEBUG=WARN srun --nodes=2 --ntasks=2 --ntasks-per-node=1");
  CHECK(p.trainer.shell() == "/usr/local/bin/bind --plan /results/plan.json -- /usr/local/bin/trainer-cuda --config /results/run.yaml");
  CHECK(p.launch.shell().ends_with(p.trainer.shell()));
  CHECK(p.binding.unit == "gpu");
  CHECK(p.binding.cpu == "exclusive");
  CHECK(p.container.runtime == "pyxis");
  CHECK(p.container.image == "/sq/b.sqsh");
  CHECK(p.target_accuracy == doctest::Approx(0.6));
  CHECK(p.rendezvous_dir.empty());  // srun's ranks meet through PMI
  CHECK(p.run_config_file == "/o/run.yaml");
  Plan q = Plan::from_json(p.to_json());
  CHECK(q.mpi == p.mpi);
  CHECK(q.per_node.argv == p.per_node.argv);
  CHECK(q.per_node.env == p.per_node.env);
  CHECK(q.trainer.argv == p.trainer.argv);
  CHECK(q.binding.unit == "gpu");
  CHECK(q.container.runtime == "pyxis");
  CHECK(q.target_accuracy == p.target_accuracy);

  Plan local = plan_of(
      "topology: {synthetic: \"pack:2 numa:1 core:2 pu:1\"}\nbenchmark: {data: {train_dir: /t, eval_dir: /e}}\n"
      "experiment: {output_dir: /l}\n");
  CHECK(local.binding.unit == "socket");  // auto on a node without GPUs
  CHECK(local.mpi.empty());
  CHECK(local.per_node.argv.empty());
  CHECK(local.per_node.env.empty());
  CHECK(local.container.runtime.empty());
  CHECK(local.rendezvous_dir == "/l/rendezvous");
  CHECK(local.trainer.shell() == local.launch.shell());
  CHECK(local.trainer.argv[4] == "/opt/bert/bin/trainer");  // the CPU backend: the binary without CUDA
}

TEST_CASE("a plan.json without the typed fields is refused, naming the field") {
  json j = plan_of(kTwoNodes).to_json();
  j.erase("per_node");
  CHECK_THROWS_WITH_AS(Plan::from_json(j), doctest::Contains("per_node"), json::exception);
}

TEST_CASE("systems JSON carries every field the MLPerf system checker requires") {
  Plan p = plan_of(kTwoNodes, {"system.name=Box", "system.submitter=Org", "system.json.cooling=liquid", "system.host_processors_per_node=2"});
  REQUIRE(bert::results::required_system_fields().size() == 33);
  for (const std::string& k : bert::results::required_system_fields()) CHECK_MESSAGE(p.system_json.contains(k), k);
  CHECK(p.system_json["system_name"] == "Box");
  CHECK(p.system_json["number_of_nodes"] == "2");
  CHECK(p.system_json["accelerators_per_node"] == "4");
  CHECK(p.system_json["host_processor_core_count"] == "4");
  CHECK(p.system_json["host_processor_vcpu_count"] == "8");
  CHECK(p.system_json["cooling"] == "liquid");
  CHECK(p.trainer_config["submission"]["submission_org"] == "Org");
  CHECK(p.trainer_config["submission"]["submission_platform"] == "2xBox");
}

TEST_CASE("cross-field errors point at the key") {
  CHECK(error_of([] { plan_of(kTwoNodes, {"container.image=/sq/b.sqsh"}); }) ==
        "--set container.image=/sq/b.sqsh: container.image: containers are started through pyxis, which needs launcher.type srun (got mpirun)");
  CHECK(error_of([] { plan_of(kTwoNodes, {"benchmark.eval_interval_samples=0"}); }).find("must be > 0, or -1") != std::string::npos);
  CHECK(error_of([] { plan_of(kTwoNodes, {"nodes.gpus_per_node=0", "binding.unit=gpu"}); }).find("nodes.gpus_per_node: 0 GPUs per node") !=
        std::string::npos);
  CHECK(error_of([] { plan_of(kTwoNodes, {"nodes.gpus_per_node=6"}); }).find("is 6 but") != std::string::npos);
  CHECK(error_of([] { plan_of(kTwoNodes, {"launcher.mpirun.hosts=[a]"}); }).find("one host per node (2)") != std::string::npos);
  CHECK(error_of([] { plan_of(kTwoNodes, {"launcher.type=local"}); }).find("nodes.count") != std::string::npos);
  CHECK(error_of([] { plan_of(kTwoNodes, {"experiment.run_walltime=1h"}); }).find("is not a Slurm time") != std::string::npos);
  CHECK(error_of([] { plan_of(kTwoNodes, {"topology.xml=/x.xml"}); }).find("not both") != std::string::npos);
}

TEST_CASE("a bad container mount points at its list item") {
  std::string yaml = std::string(kTwoNodes) + "container:\n  image: /sq/b.sqsh\n  mounts:\n    - /ok:/ok\n    - /a,b:/c\n";
  std::string msg = error_of([&] { plan_of(yaml, {"launcher.type=srun", "launcher.mpirun.hosts=[]", "experiment.output_dir=/o"}); });
  CHECK(msg == "p.yaml:17:7: container.mounts[1]: mount source path '/a,b' contains ',', which container runtimes use as a separator in their mount syntax");
}

TEST_CASE("binding errors are mapped to the YAML key") {
  // Socket 0 (CPUs 0-3 + SMT siblings 8-11) fully reserved: the ranks of GPUs 0 and 1 are left without a CPU
  // (binding.cpu is a default here, so the message points at the file).
  std::string msg = error_of([] { plan_of(kTwoNodes, {"topology.reserved_cpus=0-3,8-11"}); });
  CHECK(msg.rfind("p.yaml:1:1: binding.cpu: ", 0) == 0);
  // A GPU map longer than the GPUs of an XML topology (the DGX H100 has 8).
  std::string yaml = std::string("topology:\n  xml: ") + BERT_SOURCE_DIR + "/systems/topologies/dgxh100.xml\n"
                     "  gpu_numa_map: [0, 0, 0, 0, 1, 1, 1, 1, 1]\nbenchmark: {data: {train_dir: /t, eval_dir: /e}}\n";
  std::string map = error_of([&] { plan_of(yaml); });
  CHECK(map.rfind("p.yaml:3:17: topology.gpu_numa_map: ", 0) == 0);
}
