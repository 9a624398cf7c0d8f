// Test double for build/trainer, used by the executor's integration tests: same command line
// (--config run.yaml, rank from RANK), a realistic MLLOG sequence on stdout from rank 0 whose
// accuracy curve depends on the seed, progress on stderr, and injectable faults.
//   --step-ms N          wall time per eval interval (default 20)
//   --crash-rank R --crash-code C --crash-after K   rank R exits with C after K evals
//   --crash-signal S     rank R kills itself with signal S instead
//   --crash-node NAME    every rank on Slurm node NAME (SLURMD_NODENAME) crashes like rank R would
//   --fault-seed S       faults (crash, hang) only in the run whose seed is S
//   --hang-rank R        rank R stops making progress after init
//   --ignore-term        ignore SIGTERM (the harness must escalate to SIGKILL)
//   --no-converge        accuracy never reaches the target; run_stop aborted
//   --flood-bytes N      rank 0 prints N extra bytes of non-MLLOG output first
//   --eval-samples N     samples between evals (default 150000: ~1.5-1.8M to converge; 230000 lands
//                        at ~2.3-2.8M, past the RCP of batch 448, so a closed-division package passes)
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

namespace {

using json = nlohmann::ordered_json;
volatile sig_atomic_t g_term = 0;

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch()).count();
}

void mllog(bool on, const char* type, const std::string& key, const json& value, json meta, int line) {
  if (!on) return;
  json m = {{"file", "fake_trainer.cpp"}, {"lineno", line}};
  for (auto& [k, v] : meta.items()) m[k] = v;
  json j = {{"namespace", ""}, {"time_ms", now_ms()}, {"event_type", type}, {"key", key},
            {"value", value}, {"metadata", m}};
  std::printf(":::MLLOG %s\n", j.dump().c_str());
  std::fflush(stdout);
}
#define EVENT(key, value, ...) mllog(rank0, "POINT_IN_TIME", key, value, json::object(__VA_ARGS__), __LINE__)
#define START(key, value, ...) mllog(rank0, "INTERVAL_START", key, value, json::object(__VA_ARGS__), __LINE__)
#define END(key, value, ...) mllog(rank0, "INTERVAL_END", key, value, json::object(__VA_ARGS__), __LINE__)

long arg_long(int argc, char** argv, const std::string& name, long dflt) {
  for (int i = 1; i + 1 < argc; ++i)
    if (name == argv[i]) return std::strtol(argv[i + 1], nullptr, 10);
  return dflt;
}
bool has_flag(int argc, char** argv, const std::string& name) {
  for (int i = 1; i < argc; ++i)
    if (name == argv[i]) return true;
  return false;
}
std::string arg_str(int argc, char** argv, const std::string& name) {
  for (int i = 1; i + 1 < argc; ++i)
    if (name == argv[i]) return argv[i + 1];
  return "";
}

void sleep_ms(long ms) {
  for (long t = 0; t < ms && !g_term; t += 10) std::this_thread::sleep_for(std::chrono::milliseconds(std::min(10L, ms - t)));
}

}  // namespace

int main(int argc, char** argv) {
  std::string config_path = arg_str(argc, argv, "--config");
  std::ifstream in(config_path);
  if (!in) {
    std::fprintf(stderr, "fake_trainer: cannot read --config %s\n", config_path.c_str());
    return 2;
  }
  json cfg = json::parse(in, nullptr, false);
  if (cfg.is_discarded()) {
    std::fprintf(stderr, "fake_trainer: %s is not JSON\n", config_path.c_str());
    return 2;
  }
  const char* rank_env = std::getenv("RANK");
  const int rank = rank_env ? std::atoi(rank_env) : 0;
  const bool rank0 = rank == 0;
  const uint64_t seed = cfg["run"].value("seed", uint64_t(0));
  const double target = cfg["stopping"].value("target_accuracy", 0.72);
  const long step_ms = arg_long(argc, argv, "--step-ms", 20);
  const char* slurm_node = std::getenv("SLURMD_NODENAME");
  const std::string crash_node = arg_str(argc, argv, "--crash-node");
  const long crash_rank = !crash_node.empty() && slurm_node && crash_node == slurm_node ? rank
                                                                                        : arg_long(argc, argv, "--crash-rank", -1);
  const long crash_code = arg_long(argc, argv, "--crash-code", 3);
  const long crash_after = arg_long(argc, argv, "--crash-after", 1);
  const long crash_signal = arg_long(argc, argv, "--crash-signal", 0);
  const long hang_rank = arg_long(argc, argv, "--hang-rank", -1);
  const bool no_converge = has_flag(argc, argv, "--no-converge");
  const long fault_seed = arg_long(argc, argv, "--fault-seed", -1);
  const bool faults = fault_seed < 0 || uint64_t(fault_seed) == seed;

  struct sigaction sa {};
  sa.sa_handler = has_flag(argc, argv, "--ignore-term") ? SIG_IGN : [](int) { g_term = 1; };
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);

  if (rank0) {
    long flood = arg_long(argc, argv, "--flood-bytes", 0);
    std::string chunk(1023, 'x');
    for (long done = 0; done < flood; done += 1024) std::printf("%s\n", chunk.c_str());
  }

  const int64_t gbs = 448;
  const int64_t interval = arg_long(argc, argv, "--eval-samples", 150000);
  START("init_start", nullptr, {});
  EVENT("submission_benchmark", "bert", {});
  EVENT("submission_org", "TEST", {});
  EVENT("submission_division", cfg["submission"].value("submission_division", "closed"), {});
  EVENT("submission_status", "onprem", {});
  EVENT("submission_platform", "1xFAKE", {});
  EVENT("seed", seed, {});
  EVENT("global_batch_size", gbs, {});
  EVENT("d_batch_size", 56, {});
  EVENT("gradient_accumulation_steps", 1, {});
  EVENT("max_predictions_per_seq", 76, {});
  EVENT("opt_learning_rate_training_steps", 7100, {});
  EVENT("num_warmup_steps", 0, {});
  EVENT("opt_base_learning_rate", 4e-4, {});
  EVENT("opt_lamb_epsilon", 1e-6, {});
  EVENT("opt_epsilon", 1e-6, {});
  EVENT("opt_lamb_beta_1", 0.9, {});
  EVENT("opt_lamb_beta_2", 0.999, {});
  EVENT("opt_lamb_weight_decay_rate", 0.01, {});
  EVENT("opt_learning_rate_warmup_steps", 0, {});
  EVENT("opt_lamb_learning_rate_decay_poly_power", 1.0, {});
  EVENT("start_warmup_step", 0, {});
  END("init_stop", nullptr, {});
  START("run_start", nullptr, {});
  START("epoch_start", nullptr, {{"epoch_num", 0}});
  START("block_start", nullptr, {{"first_epoch_num", 0}, {"epoch_count", 1}});

  // Seed-dependent convergence: between ~10 and ~12 evals of 150k samples.
  const double rate = 0.25 + double(seed % 97) / 97.0 * 0.05;
  int64_t samples = 0;
  bool converged = false;
  for (int e = 1; e <= 40 && !g_term; ++e) {
    if (faults && rank == hang_rank) {
      while (!g_term) sleep_ms(50);
      break;
    }
    sleep_ms(step_ms);
    if (g_term) break;
    if (faults && rank == crash_rank && e > crash_after) {
      std::fprintf(stderr, "fake_trainer rank %d: injected crash\n", rank);
      if (crash_signal) raise(int(crash_signal));
      return int(crash_code);
    }
    samples += interval;
    double acc = 0.34 + 0.40 * (1.0 - std::exp(-rate * e));
    if (no_converge) acc = std::min(acc, target - 0.01);
    START("eval_start", nullptr, {{"epoch_num", samples}});
    END("eval_stop", nullptr, {{"epoch_num", samples}});
    EVENT("eval_accuracy", acc, {{"epoch_num", samples}});
    std::fprintf(stderr, "rank %d: %lld samples, accuracy %.4f\n", rank, (long long)samples, acc);
    if (acc >= target) {
      converged = true;
      break;
    }
  }
  END("block_stop", nullptr, {{"first_epoch_num", 0}});
  END("epoch_stop", nullptr, {{"epoch_num", samples}});
  EVENT("train_samples", samples, {});
  EVENT("eval_samples", 10000, {});
  END("run_stop", nullptr, {{"status", converged ? "success" : "aborted"}});
  return 0;
}
