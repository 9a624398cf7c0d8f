// A packed batch and the same sequences padded one per row (bench_batches' padded_rows_of, how
// MLPerf's reference and the PyTorch peer run them) give the same loss and gradients: packing changes
// the work, not the maths (per-sequence attention, positions restarting in a pack).
#include <doctest/doctest.h>

#include <cmath>

#include "bench/trainer_throughput/bench_batches.h"
#include "tests/unit/trainer/rel_error.h"
#include "tests/unit/trainer/tiny_model.h"
#include "trainer/cpu/bert_cpu.h"

using namespace bert;

TEST_CASE("a packed batch and its sequences padded one per row: the same loss and gradients") {
  const test::TinyModel tiny;
  const auto& [cfg, layout, params, packed] = tiny;
  const data::Batch padded = bench::padded_rows_of(packed);
  REQUIRE(packed.num_sequences > packed.rows);  // really packed: some row holds 2-3 sequences
  CHECK(padded.rows == packed.num_sequences);
  CHECK(padded.num_masked() == packed.num_masked());

  auto run = [&](const data::Batch& b, std::vector<float>& grads) {
    cpu::BertCpu m(layout);
    grads.assign(layout.total, 0.0f);
    const model::StepStats st = m.forward(b, params.data(), model::DropoutContext{});
    m.backward(params.data(), grads.data(), 1.0f);
    return st;
  };
  std::vector<float> g_packed, g_padded;
  const model::StepStats a = run(packed, g_packed), b = run(padded, g_padded);
  CHECK(a.sequences == b.sequences);
  CHECK(a.loss == doctest::Approx(b.loss).epsilon(1e-6));
  CHECK(a.mlm_correct == b.mlm_correct);
  for (const auto& t : layout.tensors) {
    const std::vector<float> x(g_packed.begin() + t.offset, g_packed.begin() + t.offset + t.size),
        y(g_padded.begin() + t.offset, g_padded.begin() + t.offset + t.size);
    double norm = 0, diff = 0;
    for (size_t i = 0; i < y.size(); ++i) norm += double(y[i]) * y[i], diff = std::max(diff, double(std::fabs(x[i] - y[i])));
    INFO("gradient of " << t.name);
    // the key biases' gradient is zero in theory (rounding noise only): compare those absolutely
    if (std::sqrt(norm) < 1e-6) CHECK(diff < 1e-7);
    else CHECK(test::rel_error(x, y) < 1e-5);
  }
}
