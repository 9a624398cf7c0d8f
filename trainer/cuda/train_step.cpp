#include "trainer/cuda/train_step.h"

#include "trainer/cuda/check.h"
#include "trainer/cuda/lamb_tensors.h"

namespace bert::cuda {
namespace {

CudaModelLimits with_static(CudaModelLimits l, bool graph) {
  if (graph) l.static_shapes = true;
  return l;
}

}  // namespace

CudaTrainStep::CudaTrainStep(const model::ParamLayout& layout, CudaModelLimits limits, const TrainStepOptions& opt,
                             NcclDataParallel* dp)
    : layout_(layout),
      opt_(opt),
      model_(layout, with_static(limits, opt.use_graph)),
      lamb_(lamb_tensors(layout), opt.lamb),
      m_(layout.total),
      v_(layout.total),
      dp_(dp) {
  BERT_CUDA_CHECK(cudaMemset(m_.get(), 0, layout.total * sizeof(float)));
  BERT_CUDA_CHECK(cudaMemset(v_.get(), 0, layout.total * sizeof(float)));
}

CudaTrainStep::~CudaTrainStep() {
  if (exec_) cudaGraphExecDestroy(exec_);
  if (graph_) cudaGraphDestroy(graph_);
}

void CudaTrainStep::set_params(const std::vector<float>& params) { model_.set_params(params); }

void CudaTrainStep::enqueue(uint32_t micro_step) {
  cudaStream_t s = model_.stream();
  model_.zero_grads();
  model_.forward(CudaDropout{true, opt_.dropout_seed, opt_.rank, micro_step});
  if (dp_) {
    model_.backward(opt_.grad_scale, [&](size_t off, size_t n) { dp_->grads_ready(model_.grads_f32(), off, n, s); });
    dp_->finish(s);
  } else {
    model_.backward(opt_.grad_scale);
  }
  lamb_.step(model_.params_f32(), model_.grads_f32(), m_.get(), v_.get(), model_.params_bf16(), s);
}

void CudaTrainStep::step(const data::Batch& batch, uint32_t micro_step) {
  cudaStream_t s = model_.stream();
  model_.load_batch(batch);
  if (opt_.use_graph) model_.set_micro_step(micro_step);
  if (exec_) {
    BERT_CUDA_CHECK(cudaGraphLaunch(exec_, s));
    return;
  }
  if (!opt_.use_graph || eager_done_ < opt_.eager_steps_before_capture) {
    enqueue(micro_step);
    ++eager_done_;
    return;
  }
  BERT_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  try {
    enqueue(micro_step);
  } catch (...) {
    cudaGraph_t broken = nullptr;
    cudaStreamEndCapture(s, &broken);
    if (broken) cudaGraphDestroy(broken);
    throw;
  }
  BERT_CUDA_CHECK(cudaStreamEndCapture(s, &graph_));
  BERT_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
  BERT_CUDA_CHECK(cudaGraphLaunch(exec_, s));
}

}  // namespace bert::cuda
