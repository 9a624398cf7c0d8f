#include "trainer/cuda/op_timer.h"

#include <string>

#include "trainer/cuda/check.h"

namespace bert::cuda {

OpTimer::OpTimer(int max_events) : events_(static_cast<size_t>(max_events), nullptr) {
  for (cudaEvent_t& e : events_) BERT_CUDA_CHECK(cudaEventCreate(&e));
}

OpTimer::~OpTimer() {
  for (cudaEvent_t e : events_)
    if (e) cudaEventDestroy(e);
}

void OpTimer::reset() {
  used_ = 0;
  spans_.clear();
}

int OpTimer::record(cudaStream_t stream) {
  if (used_ >= static_cast<int>(events_.size()))
    throw CudaError("OpTimer: more than " + std::to_string(events_.size()) + " events in one step");
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  BERT_CUDA_CHECK(cudaStreamIsCapturing(stream, &capture));
  cudaEvent_t e = events_[static_cast<size_t>(used_)];
  if (capture == cudaStreamCaptureStatusActive)
    BERT_CUDA_CHECK(cudaEventRecordWithFlags(e, stream, cudaEventRecordExternal));
  else
    BERT_CUDA_CHECK(cudaEventRecord(e, stream));
  return used_++;
}

void OpTimer::mark(model::StepOp op, cudaStream_t stream) {
  stop(stream);
  spans_.push_back(Span{op, record(stream), -1});
}

std::optional<model::StepOp> OpTimer::current() const {
  if (spans_.empty() || spans_.back().end >= 0) return std::nullopt;
  return spans_.back().op;
}

void OpTimer::stop(cudaStream_t stream) {
  if (!spans_.empty() && spans_.back().end < 0) spans_.back().end = record(stream);
}

OpTimes OpTimer::read() const {
  OpTimes t;
  if (spans_.empty()) return t;
  if (spans_.back().end < 0) throw CudaError("OpTimer::read: the last op was not stopped");
  BERT_CUDA_CHECK(cudaEventSynchronize(events_[static_cast<size_t>(spans_.back().end)]));
  auto ms = [&](int a, int b) {
    float v = 0;
    BERT_CUDA_CHECK(cudaEventElapsedTime(&v, events_[static_cast<size_t>(a)], events_[static_cast<size_t>(b)]));
    return static_cast<double>(v);
  };
  for (size_t i = 0; i < spans_.size(); ++i) {
    const Span& s = spans_[i];
    const auto k = static_cast<size_t>(s.op);
    t.ms[k] += ms(s.begin, s.end);
    t.spans[k] += 1;
    if (i > 0) t.gaps_ms += ms(spans_[i - 1].end, s.begin);
  }
  t.total_ms = ms(spans_.front().begin, spans_.back().end);
  return t;
}

}  // namespace bert::cuda
