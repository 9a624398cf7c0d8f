// The last layer computed on the heads' rows only (BertCpu's default) against every row (as the
// reference model): the same loss, logits and gradients, with dropout on (the masks of the rows kept
// are the same elements of the same streams), on a packed and a padded batch.
#include <doctest/doctest.h>

#include <cmath>

#include "bench/trainer_throughput/bench_batches.h"
#include "tests/unit/trainer/rel_error.h"
#include "tests/unit/trainer/tiny_model.h"
#include "trainer/cpu/bert_cpu.h"

using namespace bert;

namespace {

struct Result {
  model::StepStats stats;
  std::vector<float> mlm_logits, nsp_logits, grads;
};

Result run(const model::ParamLayout& layout, const std::vector<float>& params, const data::Batch& b, bool rows_only) {
  cpu::BertCpu m(layout);
  m.set_last_layer_head_rows_only(rows_only);
  Result r;
  r.grads.assign(layout.total, 0.0f);
  r.stats = m.forward(b, params.data(), model::DropoutContext{true, 5, 0, 3});
  r.mlm_logits = m.mlm_logits(), r.nsp_logits = m.nsp_logits();
  m.backward(params.data(), r.grads.data(), 1.0f);
  return r;
}

}  // namespace

TEST_CASE("the last layer on the heads' rows only: the same loss and gradients as on every row") {
  const test::TinyModel tiny;
  const auto& [cfg, layout, params, packed] = tiny;
  for (const data::Batch& b : {packed, bench::padded_rows_of(packed)}) {
    INFO("rows " << b.rows << ", sequences " << b.num_sequences);
    const Result some = run(layout, params, b, true), all = run(layout, params, b, false);
    CHECK(some.stats.loss == doctest::Approx(all.stats.loss).epsilon(1e-6));
    CHECK(some.stats.mlm_correct == all.stats.mlm_correct);
    CHECK(some.stats.nsp_correct == all.stats.nsp_correct);
    CHECK(test::rel_error(some.mlm_logits, all.mlm_logits) < 1e-5);  // their gradient, after backward
    CHECK(test::rel_error(some.nsp_logits, all.nsp_logits) < 1e-5);
    double max_rel = 0;
    for (const auto& t : layout.tensors) {
      const std::vector<float> x(some.grads.begin() + t.offset, some.grads.begin() + t.offset + t.size),
          y(all.grads.begin() + t.offset, all.grads.begin() + t.offset + t.size);
      double norm = 0, diff = 0;
      for (size_t i = 0; i < y.size(); ++i) norm += double(y[i]) * y[i], diff = std::max(diff, double(std::fabs(x[i] - y[i])));
      INFO("gradient of " << t.name);
      if (std::sqrt(norm) < 1e-6) {
        CHECK(diff < 1e-7);  // the key biases' gradient: zero in theory, rounding noise only
      } else {
        const double e = test::rel_error(x, y);
        CHECK(e < 1e-5);
        max_rel = std::max(max_rel, e);
      }
    }
    MESSAGE("largest relative gradient difference: " << max_rel);
  }
}
