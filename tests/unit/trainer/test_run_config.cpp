#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "trainer/eval_cadence.h"
#include "trainer/run_config.h"
#include "trainer/run_config_keys.h"
#include "trainer/train_backend.h"

using namespace bert::trainer;

namespace {

std::string write_temp(const std::string& text) {
  char name[] = "/tmp/run_config_testXXXXXX";
  const int fd = mkstemp(name);
  REQUIRE(fd >= 0);
  std::ofstream(name) << text;
  close(fd);
  return name;
}

std::string error_of(const std::string& text) {
  const std::string path = write_temp(text);
  try {
    load_run_config(path);
  } catch (const RunConfigError& e) {
    std::remove(path.c_str());
    return e.what();
  }
  std::remove(path.c_str());
  return "";
}

}  // namespace

TEST_CASE("run config: the groups the harness writes") {
  const std::string path = write_temp(R"(
model: {size: base, bert_config: "", init_checkpoint: /ckpt/model.h5}
data:
  train_dir: /data/train
  eval_file: /data/eval.h5
  data_format: packed
  vocab_size: 30522
  max_seq_length: 512
  max_predictions_per_seq: 76
  num_eval_examples: 10000
batch: {batch_size: 48, gradient_accumulation_steps: 2, average_packing_rate: 2.0, eval_batch_size: 16}
optimizer: {learning_rate: 9.6e-4, lamb_beta_1: 0.60466, lamb_beta_2: 0.85437, lamb_epsilon: 1e-6,
            weight_decay_rate: 0.1, max_steps: 3680, warmup_steps: 0, warmup_proportion: 0.0,
            start_warmup_step: -200000, clip_after_allreduce: true}
stopping: {max_samples: 4500000, eval_start_samples: -1, eval_interval_samples: -1, target_accuracy: 0.72}
run: {seed: 42, precision: fp32, backend: cpu, threads: 4, rendezvous_dir: /tmp/rdv}
submission: {submission_org: ACME, submission_division: closed, submission_status: onprem,
             submission_platform: 1xlocal}
)");
  const RunConfig c = load_run_config(path);
  std::remove(path.c_str());
  CHECK(c.model_size == bert::model::ModelSize::Base);
  CHECK(c.init_checkpoint == "/ckpt/model.h5");
  CHECK(c.data_format == bert::data::Format::packed);
  CHECK(c.batch_size == 48);
  CHECK(c.gradient_accumulation_steps == 2);
  CHECK(c.average_packing_rate == 2.0);
  CHECK(c.learning_rate == doctest::Approx(9.6e-4));
  CHECK(c.start_warmup_step == -200000);
  CHECK(c.clip_after_allreduce);
  CHECK(c.max_samples == 4500000);
  CHECK(c.seed == 42);
  CHECK(c.threads == 4);
  CHECK(c.rendezvous_dir == "/tmp/rdv");
  CHECK(c.submission_org == "ACME");
}

TEST_CASE("run config: JSON is accepted and missing keys keep their defaults") {
  const std::string path = write_temp(R"({"model": {"size": "tiny"}, "batch": {"batch_size": 8}})");
  const RunConfig c = load_run_config(path);
  std::remove(path.c_str());
  CHECK(c.batch_size == 8);
  CHECK(c.learning_rate == doctest::Approx(4e-4));
}

TEST_CASE("run config: errors name file, line, column and key") {
  const std::pair<const char*, const char*> cases[] = {  // run config -> what its error must say
      {"model:\n  size: tiny\noptimizer:\n  learning_rate: fast\n", ":4:18: optimizer.learning_rate: expected a number"},
      {"batch:\n  batchsize: 4\n", ":2:3: batch.batchsize: unknown key"},
      {"model: {size: huge}\n", ":1:15: model.size: 'huge' is not one of tiny, base, large, custom"},
      {"batch: {batch_size: 0}\n", ":1:21: batch.batch_size: must be >= 1, got 0"},
      {"model: [1, 2\n", "not valid YAML"},
      {"weights: {}\n", "weights: unknown group"},
  };
  for (const auto& [yaml, expected] : cases) {
    CAPTURE(yaml);
    CHECK(error_of(yaml).find(expected) != std::string::npos);
  }
}

TEST_CASE("run config: precision follows the backend unless given; cpu fp32 or bf16, cuda bf16 or fp8") {
  auto load = [](const std::string& text) {
    const std::string path = write_temp(text);
    const RunConfig c = load_run_config(path);
    std::remove(path.c_str());
    return c;
  };
  CHECK(load("run: {seed: 1}\n").precision == Precision::fp32);
  CHECK(load("run: {backend: cpu}\n").precision == Precision::fp32);
  CHECK(load("run: {backend: cuda}\n").precision == Precision::bf16);
  CHECK(load("run: {backend: cuda, precision: }\n").precision == Precision::bf16);
  CHECK(load("run: {backend: cuda, precision: bf16}\n").precision == Precision::bf16);
  CHECK(load("run: {backend: cpu, precision: bf16}\n").precision == Precision::bf16);  // bf16 GEMMs (oneDNN)
  CHECK(load("run: {backend: cuda, precision: fp8}\n").precision == Precision::fp8);
  CHECK(error_of("run: {precision: fp16}\n").find("run.precision: expected one of fp32, bf16, fp8, got 'fp16'") !=
        std::string::npos);
  // cuda + fp32 is a valid config (the harness writes it for fp32 GPU systems); the trainer refuses
  // it at start, before looking for a device (check_backend_available).
  const RunConfig fp32 = load("run: {backend: cuda, precision: fp32}\n");
  CHECK(fp32.precision == Precision::fp32);
  CHECK_THROWS_WITH_AS(check_backend_available(fp32, "r.yaml"),
                       doctest::Contains("r.yaml: run.precision: fp32 is not implemented on run.backend: cuda; the cuda "
                                         "backend computes in bf16 or fp8"),
                       RunConfigError);
  // fp8 on the cpu backend: refused the same way, naming what fp8 needs
  CHECK_THROWS_WITH_AS(check_backend_available(load("run: {backend: cpu, precision: fp8}\n"), "r.yaml"),
                       doctest::Contains("r.yaml: run.precision: fp8 is not implemented on run.backend: cpu; the cpu "
                                         "backend computes in fp32 or bf16 (fp8 needs run.backend: cuda on GPUs with FP8"),
                       RunConfigError);
  CHECK_NOTHROW(check_backend_available(load("run: {backend: cpu}\n"), "r.yaml"));
  CHECK(error_of("run: {backend: tpu}\n").find("run.backend: 'tpu' is not one of cpu, cuda") != std::string::npos);
  // the recipe's keys: Transformer Engine's defaults
  const RunConfig d = load("run: {backend: cuda, precision: fp8}\n");
  CHECK(d.fp8_amax_history == 1);
  CHECK(d.fp8_margin == 0);
  CHECK(load("run: {fp8_amax_history: 16, fp8_margin: 1}\n").fp8_amax_history == 16);
  CHECK(error_of("run: {fp8_amax_history: 0}\n").find("run.fp8_amax_history: must be >= 1, got 0") != std::string::npos);
}

TEST_CASE("precision: one table of names, the backend's default, which backend computes in which") {
  CHECK(precision_names() == std::vector<std::string>{"fp32", "bf16", "fp8"});
  for (const std::string& n : precision_names()) CHECK(to_string(*parse_precision(n)) == n);
  CHECK_FALSE(parse_precision("auto").has_value());
  CHECK_FALSE(parse_precision("BF16").has_value());
  CHECK(default_precision(Backend::Cuda) == Precision::bf16);
  CHECK(default_precision(Backend::Cpu) == Precision::fp32);
  CHECK(precision_problem(Precision::bf16, Backend::Cpu).empty());
  CHECK(precision_problem(Precision::fp8, Backend::Cuda).empty());
  CHECK_FALSE(precision_problem(Precision::fp8, Backend::Cpu).empty());
  CHECK_FALSE(precision_problem(Precision::fp32, Backend::Cuda).empty());
  const RunConfigKey* k = find_run_config_key("run.precision");
  REQUIRE(k != nullptr);
  CHECK(k->choices == precision_names());  // the schema's choices are the table's
}

TEST_CASE("run-config keys: one row per key, found by run-config or system name; defaults are RunConfig's") {
  const auto& keys = run_config_keys();
  for (size_t i = 0; i < keys.size(); ++i)
    for (size_t j = i + 1; j < keys.size(); ++j) {
      CHECK(keys[i].name != keys[j].name);
      if (!keys[i].system_key.empty()) CHECK(keys[i].system_key != keys[j].system_key);
    }
  CHECK(run_config_groups() == std::vector<std::string>{"model", "data", "batch", "optimizer", "stopping", "run", "submission"});
  const RunConfigKey* lr = find_run_config_key("optimizer.learning_rate");
  REQUIRE(lr != nullptr);
  CHECK(lr == find_run_config_key_by_system_key("benchmark.learning_rate"));
  CHECK(lr->def == "4e-4");
  CHECK(find_run_config_key_by_system_key("") == nullptr);
  CHECK(find_run_config_key("optimizer.lr") == nullptr);
  const RunConfig c;  // every default within its own row's range and choices
  CHECK(c.learning_rate == doctest::Approx(4e-4));
  CHECK(c.model_size == bert::model::ModelSize::Large);
  CHECK(c.max_predictions_per_seq == 76);
  CHECK(c.target_accuracy == doctest::Approx(0.72));
  CHECK(c.submission_org == "SUBMISSION_ORG_PLACEHOLDER");
  CHECK(c.precision == Precision::fp32);  // the default backend's (cpu)
  for (const RunConfigKey& k : keys) CHECK_MESSAGE(k.problem(c).empty(), k.name);
}

TEST_CASE("run config: a value outside its row's range names the bound") {
  CHECK(error_of("optimizer: {lamb_beta_2: 1.0}\n").find("optimizer.lamb_beta_2: must be < 1, got 1") != std::string::npos);
  CHECK(error_of("batch: {average_packing_rate: 0.5}\n").find("batch.average_packing_rate: must be >= 1, got 0.5") !=
        std::string::npos);
  CHECK(error_of("optimizer: {lamb_beta_2: 0.9999999}\n").empty());
  CHECK(error_of("stopping: {eval_interval_samples: 0}\n").find("must be -1 (formula) or positive") != std::string::npos);
}

TEST_CASE("run config: missing file") {
  CHECK_THROWS_WITH_AS(load_run_config("/nonexistent/run.yaml"), "/nonexistent/run.yaml: cannot open run config",
                       RunConfigError);
}

TEST_CASE("MLPerf eval interval formula") {
  CHECK(mlperf_eval_interval(256) == 150000);
  CHECK(mlperf_eval_interval(768) == 150000);
  CHECK(mlperf_eval_interval(2048) == 150000);
  CHECK(mlperf_eval_interval(3072) == 175000);
  CHECK(mlperf_eval_interval(4096) == 175000);
  CHECK(mlperf_eval_interval(4608) == 200000);
  CHECK(mlperf_eval_interval(8192) == 225000);
  CHECK(mlperf_eval_interval(16384) == 325000);
  const EvalCadence c = make_eval_cadence(-1, -1, 768);
  CHECK(c.start == 150000);
  CHECK(c.next_after(-1) == 150000);
  CHECK(c.next_after(150000) == 300000);
  const EvalCadence d = make_eval_cadence(1024, 512, 768);
  CHECK(d.start == 1024);
  CHECK(d.interval == 512);
}
