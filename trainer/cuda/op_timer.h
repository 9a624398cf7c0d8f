// Device time of each op class of a step (trainer_throughput --profile), from CUDA events on the
// model's stream. The model and the train step take an optional OpTimer*: null (every training run)
// costs one pointer test per op and records nothing.
//
// mark(op) closes the open op and opens `op`, each with its own event, so the stream's idle time
// between two ops (the host had not queued the next one yet: launch gaps) is measured apart from
// the ops; idle time between the kernels of one op counts as that op's. Under stream capture the
// events become the graph's event-record nodes (cudaEventRecordExternal), so a captured step is
// timed as it replays.
#pragma once
#include <cuda_runtime.h>

#include <array>
#include <optional>
#include <vector>

#include "trainer/model/step_costs.h"

namespace bert::cuda {

struct OpTimes {
  std::array<double, model::kStepOps> ms{};  // summed over the op's spans
  std::array<int, model::kStepOps> spans{};  // how many times the op was marked
  double gaps_ms = 0;                        // stream idle between ops
  double total_ms = 0;                       // first mark to stop()
};

class OpTimer {
 public:
  explicit OpTimer(int max_events = 8192);
  ~OpTimer();
  OpTimer(const OpTimer&) = delete;
  OpTimer& operator=(const OpTimer&) = delete;

  void reset();  // forget the marks (host bookkeeping only; the events are reused)
  void mark(model::StepOp op, cudaStream_t stream);
  void stop(cudaStream_t stream);
  // The open op (what a nested part marks again after its own op), if any.
  std::optional<model::StepOp> current() const;
  // Waits for the last event and sums the spans. Each span's events must have run once since reset().
  OpTimes read() const;

 private:
  struct Span {
    model::StepOp op;
    int begin = -1, end = -1;
  };
  int record(cudaStream_t stream);
  std::vector<cudaEvent_t> events_;
  int used_ = 0;
  std::vector<Span> spans_;
};

// Marks `op` when a timer is present (the call sites of the model and the train step).
inline void mark_op(OpTimer* t, model::StepOp op, cudaStream_t stream) {
  if (t) t->mark(op, stream);
}

// Times a part of an op as `op` of its own, then reopens the op it was part of (the FP8 casts inside a
// dense layer): `part` runs either way.
template <class F>
void mark_part(OpTimer* t, model::StepOp op, cudaStream_t stream, F&& part) {
  if (!t) return part();
  const std::optional<model::StepOp> outer = t->current();
  t->mark(op, stream);
  part();
  if (outer)
    t->mark(*outer, stream);
  else
    t->stop(stream);
}

}  // namespace bert::cuda
