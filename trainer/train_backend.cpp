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
  const std::string backend = backend_name(cfg.backend);
  // A valid run config (hand-written; the harness resolves precision per backend) that this backend cannot run.
  if (const std::string problem = precision_problem(cfg.precision, cfg.backend); !problem.empty())
    throw RunConfigError(config_path + ": run.precision: " + to_string(cfg.precision) +
                         " is not implemented on run.backend: " + backend + "; " + problem);
  if (cfg.backend == Backend::Cpu && cfg.precision == Precision::bf16) {
    std::string isa;
    if (!cpu::cpu_has_bf16_matmul(&isa))
      throw RunConfigError(config_path + ": run.precision: bf16 on run.backend: cpu needs a CPU with bf16 matrix "
                           "instructions (avx512_bf16 or AMX-BF16); this one has " + isa + "; use run.precision: fp32");
  }
  if (cfg.backend != Backend::Cuda) return;
  const std::string problem = cuda_backend_problem();
  if (!problem.empty()) throw RunConfigError(config_path + ": run.backend: cuda, but " + problem);
  if (cfg.precision == Precision::fp8) {
    const std::string fp8 = cuda_fp8_problem();
    if (!fp8.empty())
      throw RunConfigError(config_path + ": run.precision: fp8 needs GPUs with FP8 matrix units (compute capability "
                           "8.9 or later: H100, H200, L40S, ...); " + fp8 + "; use run.precision: bf16");
  }
}

std::unique_ptr<TrainBackend> make_backend(const BackendContext& ctx) {
  check_backend_available(ctx.cfg, ctx.config_path);
  if (ctx.cfg.backend == Backend::Cuda) return make_cuda_backend(ctx);
  return make_cpu_backend(ctx);
}

}  // namespace bert::trainer
