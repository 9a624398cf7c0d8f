#include "trainer/cuda/train_step.h"

#include <string>

#include "trainer/cuda/check.h"
#include "trainer/cuda/fp8_dense.h"
#include "trainer/cuda/lamb_tensors.h"

namespace bert::cuda {
namespace {

CudaModelLimits with_static(CudaModelLimits l, bool graph) {
  if (graph) l.static_shapes = true;
  return l;
}

}  // namespace

CudaTrainStep::CudaTrainStep(const model::ParamLayout& layout, CudaModelLimits limits, const TrainStepOptions& opt,
                             DataParallel* dp)
    : layout_(layout),
      opt_(opt),
      model_(layout, with_static(limits, opt.use_graph)),
      lamb_(lamb_tensors(layout), opt.lamb),
      m_(layout.total),
      v_(layout.total),
      dp_(dp),
      model_limits_rows_(limits.rows) {
  if (opt.accumulation_steps < 1) throw CudaError("CudaTrainStep: accumulation_steps must be at least 1");
  BERT_CUDA_CHECK(cudaMemset(m_.get(), 0, layout.total * sizeof(float)));
  BERT_CUDA_CHECK(cudaMemset(v_.get(), 0, layout.total * sizeof(float)));
}

CudaTrainStep::~CudaTrainStep() {
  for (auto& phase : captured_)
    for (Captured& c : phase) {
      if (c.exec) cudaGraphExecDestroy(c.exec);
      if (c.graph) cudaGraphDestroy(c.graph);
    }
}

void CudaTrainStep::set_params(const std::vector<float>& params) { model_.set_params(params); }

bool CudaTrainStep::graph_captured() const {
  for (const auto& phase : captured_)
    for (const Captured& c : phase)
      if (c.exec) return true;
  return false;
}

void CudaTrainStep::enqueue(Phase phase, Half half, uint32_t micro_step, OpTimer* timer) {
  cudaStream_t s = model_.stream();
  const bool first = phase == kWhole || phase == kFirst, last = phase == kWhole || phase == kLast;
  const float scale = opt_.grad_scale / static_cast<float>(opt_.accumulation_steps);
  Fp8DenseLayers* fp8 = model_.fp8();
  if (half != kUpdate) {
    mark_op(timer, model::StepOp::Copies, s);
    if (first) model_.zero_grads();
    model_.forward(model::DropoutContext{true, opt_.dropout_seed, opt_.rank, micro_step}, timer);
    if (last && dp_) {
      model_.backward(scale, [&](size_t off, size_t n) { dp_->grads_ready(model_.grads_f32(), off, n, s); }, timer);
      dp_->finish(s);
      if (fp8) {  // the next scales from this update's amaxes: every rank's
        mark_op(timer, model::StepOp::Fp8Weights, s);
        dp_->allreduce_max(fp8->scaling().current_amax(), static_cast<size_t>(fp8->scaling().count()), s);
      }
    } else {
      model_.backward(scale, {}, timer);
    }
  }
  if (half != kCompute && last) {
    mark_op(timer, model::StepOp::Lamb, s);
    lamb_.step(model_.params_f32(), model_.grads_f32(), m_.get(), v_.get(), model_.params_bf16(), s);
    if (fp8) {  // new scales, then the weights' FP8 copies
      mark_op(timer, model::StepOp::Fp8Weights, s);
      fp8->end_step(model_.params_f32(), model_.params_bf16(), s);
    }
  }
  if (timer) timer->stop(s);
}

void CudaTrainStep::profile_step(const data::Batch& batch, uint32_t micro_step, OpTimer& timer) {
  if (opt_.accumulation_steps != 1) throw CudaError("CudaTrainStep::profile_step: needs accumulation_steps 1");
  if (dp_ && dp_->host_exchange()) throw CudaError("CudaTrainStep::profile_step: not with a host exchange");
  cudaStream_t s = model_.stream();
  timer.reset();
  model_.load_batch(batch);
  if (opt_.use_graph) model_.set_micro_step(micro_step);
  if (!opt_.use_graph) {
    enqueue(kWhole, kAll, micro_step, &timer);
    BERT_CUDA_CHECK(cudaStreamSynchronize(s));
    return;
  }
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  BERT_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  try {
    enqueue(kWhole, kAll, micro_step, &timer);
  } catch (...) {
    cudaStreamEndCapture(s, &graph);
    if (graph) cudaGraphDestroy(graph);
    throw;
  }
  BERT_CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  const cudaError_t inst = cudaGraphInstantiate(&exec, graph, 0);
  const cudaError_t launch = inst == cudaSuccess ? cudaGraphLaunch(exec, s) : inst;
  const cudaError_t done = launch == cudaSuccess ? cudaStreamSynchronize(s) : launch;
  if (exec) cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  BERT_CUDA_CHECK(done);
}

bool CudaTrainStep::step(const data::Batch& batch, uint32_t micro_step) {
  const int n = opt_.accumulation_steps;
  const Phase phase = n <= 1 ? kWhole : micro_in_update_ == 0 ? kFirst : micro_in_update_ + 1 == n ? kLast : kMiddle;
  if (opt_.use_graph && batch.rows != model_limits_rows_)
    throw model::BatchError("batch: " + std::to_string(batch.rows) + " rows, the captured step needs " +
                         std::to_string(model_limits_rows_));
  model_.load_batch(batch);
  if (opt_.use_graph) model_.set_micro_step(micro_step);
  const bool exchange = dp_ && dp_->host_exchange() && (phase == kWhole || phase == kLast);
  if (!exchange) {
    run(phase, kAll, micro_step);
  } else {  // the ranks' reductions on the host, between the two halves
    run(phase, kCompute, micro_step);
    dp_->exchange(model_.stream());
    run(phase, kUpdate, micro_step);
  }
  micro_in_update_ = n <= 1 ? 0 : (micro_in_update_ + 1) % n;
  return micro_in_update_ == 0;
}

void CudaTrainStep::run(Phase phase, Half half, uint32_t micro_step) {
  cudaStream_t s = model_.stream();
  Captured& c = captured_[phase][half];
  if (c.exec) {
    BERT_CUDA_CHECK(cudaGraphLaunch(c.exec, s));
    return;
  }
  if (!opt_.use_graph || c.eager_done < opt_.eager_steps_before_capture) {
    enqueue(phase, half, micro_step);
    ++c.eager_done;
    return;
  }
  BERT_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  try {
    enqueue(phase, half, micro_step);
  } catch (...) {
    cudaGraph_t broken = nullptr;
    cudaStreamEndCapture(s, &broken);
    if (broken) cudaGraphDestroy(broken);
    throw;
  }
  BERT_CUDA_CHECK(cudaStreamEndCapture(s, &c.graph));
  BERT_CUDA_CHECK(cudaGraphInstantiate(&c.exec, c.graph, 0));
  BERT_CUDA_CHECK(cudaGraphLaunch(c.exec, s));
}

}  // namespace bert::cuda
