// The CPU model's forward and backward against transformers' BertForPreTraining (float64) on the
// fixtures of tests/reference/make_reference.py: loss, logits and every gradient to 1e-5 relative.
#include <doctest/doctest.h>

#include <cmath>

#include "tests/unit/trainer/h5_fixture.h"
#include "tests/unit/trainer/rel_error.h"
#include "trainer/cpu/bert_cpu.h"

using namespace bert;

namespace {

void check_case(const std::string& file) {
  test::H5File f(test::reference_path(file));
  const model::ParamLayout layout = model::make_param_layout(test::fixture_config(f));
  const data::Batch batch = test::fixture_batch(f);
  const std::vector<float> params = test::fixture_flat(f, layout, "/weights");

  cpu::BertCpu model(layout);
  const bert::model::StepStats st = model.forward(batch, params.data(), bert::model::DropoutContext{});
  CHECK(st.loss == doctest::Approx(f.scalar<double>("/out/loss")).epsilon(1e-5));
  CHECK(st.mlm_loss == doctest::Approx(f.scalar<double>("/out/mlm_loss")).epsilon(1e-5));
  CHECK(st.nsp_loss == doctest::Approx(f.scalar<double>("/out/nsp_loss")).epsilon(1e-5));
  CHECK(test::rel_error(model.mlm_logits().data(), f.read<double>("/out/mlm_logits")) < 1e-5);
  CHECK(test::rel_error(model.nsp_logits().data(), f.read<double>("/out/nsp_logits")) < 1e-5);

  std::vector<float> grads(layout.total, 0.0f);
  model.backward(params.data(), grads.data(), 1.0f);
  for (const auto& t : layout.tensors) {
    const double err = test::rel_error(grads.data() + t.offset, f.read<double>("/grad/" + t.name));
    INFO(file << " gradient of " << t.name << ": relative error " << err);
    CHECK(err < 1e-5);
  }
}

}  // namespace

TEST_CASE("CPU BERT forward/backward matches PyTorch on a padded batch") { check_case("bert_tiny_padded.h5"); }

TEST_CASE("CPU BERT forward/backward matches PyTorch on a packed batch") { check_case("bert_tiny_packed.h5"); }

TEST_CASE("backward scales gradients by grad_scale and accumulates") {
  test::H5File f(test::reference_path("bert_tiny_packed.h5"));
  const model::ParamLayout layout = model::make_param_layout(test::fixture_config(f));
  const data::Batch batch = test::fixture_batch(f);
  const std::vector<float> params = test::fixture_flat(f, layout, "/weights");
  cpu::BertCpu model(layout);
  std::vector<float> g1(layout.total, 0.0f), g2(layout.total, 0.0f);
  model.forward(batch, params.data(), {});
  model.backward(params.data(), g1.data(), 1.0f);
  for (int i = 0; i < 2; ++i) {
    model.forward(batch, params.data(), {});
    model.backward(params.data(), g2.data(), 0.5f);
  }
  double err = 0, norm = 0;
  for (size_t i = 0; i < g1.size(); ++i) err = std::max(err, double(std::fabs(g1[i] - g2[i]))), norm += g1[i] * g1[i];
  CHECK(norm > 0);
  CHECK(err < 1e-6);
}
