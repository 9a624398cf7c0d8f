#include "trainer/step_agreement.h"

#include <cmath>
#include <limits>

namespace bert::trainer {

StepAgreement agree_on_step(dist::Collective& coll, const StepReport& local, bool stop_requested) {
  // a rank's norm before the allreduce is its own: every rank skips the update if any saw it non-finite
  const bool finite_norm = !local.has_loss || std::isfinite(local.grad_norm);
  double stats[4] = {local.has_loss ? local.loss : 0.0, static_cast<double>(local.sequences),
                     stop_requested ? 1.0 : 0.0, finite_norm ? 0.0 : 1.0};
  coll.allreduce_sum(stats, 4);
  StepAgreement a;
  a.sequences = static_cast<int64_t>(stats[1]);
  a.stop = stats[2] > 0;
  if (!local.has_loss) return a;
  a.has_loss = true;
  a.loss = stats[0] / coll.size();
  a.grad_norm = local.grad_norm;
  a.all_finite = std::isfinite(a.loss) && stats[3] == 0;
  if (!a.all_finite && std::isfinite(a.grad_norm)) a.grad_norm = std::numeric_limits<double>::quiet_NaN();
  return a;
}

void agree_on_loss(dist::Collective& coll, TrainBackend& backend, StepAgreement& agreed) {
  StepReport local;
  backend.measure_loss(local);
  double loss = local.loss;
  coll.allreduce_sum(&loss, 1);
  agreed.loss = loss / coll.size();
  agreed.grad_norm = local.grad_norm;  // the CUDA backend's is global: LAMB clips the allreduced gradients
  agreed.has_loss = true;
}

}  // namespace bert::trainer
