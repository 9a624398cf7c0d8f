// run.backend -> the backend (the CUDA one: whichever cuda_backend_problem/make_cuda_backend the binary
// links, train_backend.h), and what both backends share: the learning-rate schedule of the run config.
#include "trainer/train_backend.h"

#include "trainer/cpu/gemm_bf16.h"

namespace bert::trainer {

optim::LrSchedule lr_schedule(const RunConfig& cfg) {
  optim::LrSchedule s;
  s.base_lr = cfg.learning_rate;
  s.total_steps = cfg.max_steps;
  s.warmup_steps = cfg.warmup_steps > 0 ? cfg.warmup_steps : static_cast<int64_t>(cfg.warmup_proportion * cfg.max_steps);
  s.start_warmup_step = cfg.start_warmup_step;
  return s;
}

void check_backend_available(const RunConfig& cfg, const std::string& config_path) {
  if (cfg.backend == Backend::Cpu && cfg.precision == "bf16") {
    std::string isa;
    if (!cpu::cpu_has_bf16_matmul(&isa))
      throw RunConfigError(config_path + ": run.precision: bf16 on run.backend: cpu needs a CPU with bf16 matrix "
                           "instructions (avx512_bf16 or AMX-BF16); this one has " + isa + "; use run.precision: fp32");
  }
  if (cfg.backend != Backend::Cuda) return;
  // A valid run config (hand-written; the harness resolves precision per backend) that this CUDA backend cannot run.
  if (!cfg.precision.empty() && cfg.precision != "bf16")  // "": not loaded from a file, the default
    throw RunConfigError(config_path + ": run.precision: " + cfg.precision +
                         " is not implemented on run.backend: cuda (it computes in bf16 with fp32 master weights "
                         "and optimizer); use run.precision: bf16");
  const std::string problem = cuda_backend_problem();
  if (!problem.empty()) throw RunConfigError(config_path + ": run.backend: cuda, but " + problem);
}

std::unique_ptr<TrainBackend> make_backend(const BackendContext& ctx) {
  check_backend_available(ctx.cfg, ctx.config_path);
  if (ctx.cfg.backend == Backend::Cuda) return make_cuda_backend(ctx);
  return make_cpu_backend(ctx);
}

}  // namespace bert::trainer
