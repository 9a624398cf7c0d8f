// What every rank agrees on after an optimizer step, in one allreduce: the step's global sequences,
// whether any rank was asked to stop (stop_signal.h), the mean loss, and whether every rank's loss and
// gradient norm were finite (the CPU backend updates the weights only then). The training loop makes
// the agreement; backends only report their rank's statistics (train_backend.h).
#pragma once
#include <cstdint>

#include "trainer/comm/comm.h"
#include "trainer/train_backend.h"

namespace bert::trainer {

struct StepAgreement {
  int64_t sequences = 0;  // all ranks
  bool stop = false;      // some rank was asked to stop
  bool all_finite = true; // every rank's loss and gradient norm (where measured) were finite
  bool has_loss = false;  // loss and grad_norm below are known
  double loss = 0;        // mean over ranks
  double grad_norm = 0;   // this rank's report, NaN when some rank's loss or gradient was not finite
};

// Collective: every rank calls it after the same step.
StepAgreement agree_on_step(dist::Collective& coll, const StepReport& local, bool stop_requested);

// The loss of a step whose report had none (the CUDA backend's): the backend measures this rank's,
// the ranks average. Collective.
void agree_on_loss(dist::Collective& coll, TrainBackend& backend, StepAgreement& agreed);

}  // namespace bert::trainer
