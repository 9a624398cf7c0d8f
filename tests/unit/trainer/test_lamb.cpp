// LAMB against the numpy float64 reference step of tests/reference/lamb_step.h5 (to 1e-6 relative).
#include <doctest/doctest.h>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "tests/unit/trainer/h5_fixture.h"
#include "trainer/cpu/gemm_bf16.h"
#include "trainer/optim/lamb.h"
#include "trainer/optim/shards.h"

using namespace bert;

TEST_CASE("LAMB step with global-norm clipping matches the reference formula") {
  test::H5File f(test::reference_path("lamb_step.h5"));
  test::H5File w(test::reference_path("bert_tiny_padded.h5"));
  const model::ParamLayout layout = model::make_param_layout(test::fixture_config(w));
  std::vector<float> p = test::fixture_flat(f, layout, "/param");
  const std::vector<float> g = test::fixture_flat(f, layout, "/grad");

  optim::LambHyper h;
  h.beta1 = f.attr<double>("/", "beta1");
  h.beta2 = f.attr<double>("/", "beta2");
  h.eps = f.attr<double>("/", "eps");
  h.weight_decay = f.attr<double>("/", "weight_decay");
  optim::Lamb lamb(layout, h);
  lamb.m() = test::fixture_flat(f, layout, "/m");
  lamb.v() = test::fixture_flat(f, layout, "/v");
  lamb.set_state(f.attr<int64_t>("/", "step") - 1);

  const double norm = optim::global_grad_norm(layout, g.data());
  CHECK(norm == doctest::Approx(f.attr<double>("/", "grad_norm")).epsilon(1e-6));
  CHECK(norm > 1.0);  // clipping is active
  lamb.step(p.data(), g.data(), f.attr<double>("/", "lr"), optim::clip_factor(norm));
  CHECK(lamb.steps_done() == f.attr<int64_t>("/", "step"));

  for (const auto& t : layout.tensors) {
    for (const char* what : {"param_after", "m_after", "v_after"}) {
      const auto ref = f.read<double>(std::string("/") + what + "/" + t.name);
      const std::vector<float>& ours = std::string(what) == "param_after" ? p
                                       : std::string(what) == "m_after"   ? lamb.m()
                                                                          : lamb.v();
      // Relative to the tensor's scale: single elements may cancel to ~0 (w - lr·r·u), where an
      // element-wise relative error only measures the fp32 rounding of the inputs.
      double err2 = 0, ref2 = 0, worst_abs = 0, ref_max = 0;
      for (size_t i = 0; i < t.size; ++i) {
        const double r = ref[i], o = ours[t.offset + i];
        err2 += (o - r) * (o - r);
        ref2 += r * r;
        worst_abs = std::max(worst_abs, std::fabs(o - r));
        ref_max = std::max(ref_max, std::fabs(r));
      }
      INFO(std::string(what) << " of " << t.name << ": relative error " << std::sqrt(err2 / ref2)
                             << ", worst element " << worst_abs / ref_max);
      CHECK(std::sqrt(err2 / ref2) < 1e-6);
      CHECK(worst_abs <= 1e-6 * ref_max);
    }
  }
}

TEST_CASE("LAMB exclusions follow the reference regexes") {
  const model::ParamLayout l = model::make_param_layout(model::bert_config_for_size(model::ModelSize::Tiny));
  CHECK(l.find("bert/encoder/layer_0/attention/output/LayerNorm/gamma")->no_decay);
  CHECK(l.find("bert/encoder/layer_1/intermediate/dense/bias")->no_decay);
  CHECK(l.find("cls/predictions/output_bias")->no_decay);
  CHECK(l.find("cls/seq_relationship/output_bias")->no_decay);
  CHECK_FALSE(l.find("bert/embeddings/word_embeddings")->no_decay);
  CHECK_FALSE(l.find("cls/seq_relationship/output_weights")->no_decay);
  CHECK_FALSE(l.find("bert/pooler/dense/kernel")->no_decay);
}

TEST_CASE("clip factor") {
  CHECK(optim::clip_factor(0.5) == 1.0);
  CHECK(optim::clip_factor(4.0) == doctest::Approx(0.25));
}

namespace {

// Deterministic weights and gradients of BERT-tiny's size (no fixture needed for self-consistency checks).
void smooth_params_and_grads(const model::ParamLayout& layout, std::vector<float>& p, std::vector<float>& g) {
  p.resize(layout.total), g.resize(layout.total);
  for (size_t i = 0; i < layout.total; ++i) {
    p[i] = 0.02f * std::sin(0.37f * static_cast<float>(i));
    g[i] = 0.01f * std::cos(0.11f * static_cast<float>(i));
  }
}

}  // namespace

TEST_CASE("LAMB gives the same bits with 1 and 2 threads (norms summed per block in a fixed order)") {
  const model::ParamLayout layout = model::make_param_layout(model::bert_config_for_size(model::ModelSize::Tiny));
  std::vector<float> p0, g;
  smooth_params_and_grads(layout, p0, g);
  std::vector<std::vector<float>> out;
  for (int threads : {1, 2}) {
    const int before = omp_get_max_threads();
    omp_set_num_threads(threads);
    optim::Lamb lamb(layout, optim::LambHyper{});
    std::vector<float> p = p0;
    for (int s = 0; s < 3; ++s) lamb.step(p.data(), g.data(), 1e-3, 0.5);
    omp_set_num_threads(before);
    out.push_back(p);
  }
  CHECK(out[0] == out[1]);
  CHECK(out[0] != p0);
}

namespace {

// Two LAMBs from the same tiny-model weights p0 and gradients g: `plain` steps p, `other` steps q, each
// test its own way, and the results are compared. Not copyable (the LAMBs keep a reference to layout).
struct TwinLambs {
  model::ParamLayout layout = model::make_param_layout(model::bert_config_for_size(model::ModelSize::Tiny));
  std::vector<float> p0, g, p, q;
  optim::Lamb plain{layout, optim::LambHyper{}}, other{layout, optim::LambHyper{}};
  TwinLambs() {
    smooth_params_and_grads(layout, p0, g);
    p = q = p0;
  }
  TwinLambs(const TwinLambs&) = delete;
  TwinLambs& operator=(const TwinLambs&) = delete;
};

}  // namespace

TEST_CASE("LAMB with a bf16 copy: the same fp32 update, and the copy is the bf16 rounding of every updated weight") {
  TwinLambs t;
  std::vector<uint16_t> q16(t.layout.total, 0);
  for (int s = 0; s < 2; ++s) {
    t.plain.step(t.p.data(), t.g.data(), 1e-3, 0.5);
    t.other.step(t.q.data(), t.g.data(), 1e-3, 0.5, q16.data());
  }
  CHECK(t.p == t.q);
  std::vector<uint16_t> expect(t.layout.total);
  cpu::to_bf16(t.q.data(), expect.data(), t.q.size());
  size_t wrong = 0;
  for (const auto& tensor : t.layout.tensors)
    for (size_t i = tensor.offset; i < tensor.offset + tensor.size; ++i) wrong += q16[i] != expect[i];
  CHECK(wrong == 0);
  CHECK(t.q != t.p0);
}

TEST_CASE("LAMB with its updates stored (in the gradients' own buffer) gives the same bits as recomputing them") {
  TwinLambs t;
  for (int s = 0; s < 3; ++s) {
    std::vector<float> g_consumed = t.g;  // as the backend's next backward would overwrite it
    t.plain.step(t.p.data(), t.g.data(), 1e-3, 0.5);
    t.other.step(t.q.data(), g_consumed.data(), 1e-3, 0.5, nullptr, g_consumed.data());
    CHECK(g_consumed != t.g);  // it does hold the updates now
  }
  CHECK(t.p == t.q);
  CHECK(t.plain.m() == t.other.m());
  CHECK(t.plain.v() == t.other.v());
  CHECK(t.q != t.p0);
}

TEST_CASE("shards: runs of whole tensors, covering the layout once, as even as the tensors allow") {
  const model::ParamLayout layout = model::make_param_layout(model::bert_config_for_size(model::ModelSize::Base));
  for (int parts : {1, 2, 3, 8}) {
    CAPTURE(parts);
    const optim::Shards s = optim::shard_tensors(layout, parts);
    REQUIRE(s.bounds.size() == static_cast<size_t>(parts) + 1);
    CHECK(s.bounds.front() == 0);
    CHECK(s.bounds.back() == layout.total);
    CHECK(s.first_tensor.back() == layout.tensors.size());
    for (int r = 0; r < parts; ++r) {
      CHECK(s.begin(r) <= s.end(r));
      if (s.first_tensor[static_cast<size_t>(r)] < layout.tensors.size())
        CHECK(s.begin(r) == layout.tensors[s.first_tensor[static_cast<size_t>(r)]].offset);
    }
    // base: the largest tensor (word embeddings, 23.4M of 110M) bounds the imbalance only with 8 runs
    size_t largest = 0;
    for (int r = 0; r < parts; ++r) largest = std::max(largest, s.end(r) - s.begin(r));
    if (parts <= 3) CHECK(static_cast<double>(largest) < 1.1 * static_cast<double>(layout.total) / parts);
  }
  CHECK(optim::shard_tensors(layout, 2).byte_bounds(2)[1] == 2 * optim::shard_tensors(layout, 2).bounds[1]);
}

TEST_CASE("LAMB over each run of tensors, then put together, gives the bits of LAMB over all of them") {
  TwinLambs t;
  const optim::Shards s = optim::shard_tensors(t.layout, 3);
  std::vector<std::unique_ptr<optim::Lamb>> runs;
  for (int r = 0; r < 3; ++r)
    runs.push_back(std::make_unique<optim::Lamb>(t.layout, optim::LambHyper{}, s.first_tensor[static_cast<size_t>(r)],
                                                 s.first_tensor[static_cast<size_t>(r) + 1]));
  std::vector<uint16_t> p16(t.layout.total, 0), q16(t.layout.total, 0);
  for (int step = 0; step < 3; ++step) {
    t.plain.step(t.p.data(), t.g.data(), 1e-3, 0.5, p16.data());
    // each run updates its part of its own copy of the weights (as a rank does), then the parts are gathered
    std::vector<float> gathered(t.q.size());
    for (int r = 0; r < 3; ++r) {
      std::vector<float> mine = t.q;
      runs[static_cast<size_t>(r)]->step(mine.data(), t.g.data(), 1e-3, 0.5, q16.data());
      std::copy(mine.begin() + static_cast<std::ptrdiff_t>(s.begin(r)), mine.begin() + static_cast<std::ptrdiff_t>(s.end(r)),
                gathered.begin() + static_cast<std::ptrdiff_t>(s.begin(r)));
    }
    t.q = gathered;
  }
  CHECK(t.p == t.q);
  CHECK(p16 == q16);
  CHECK(t.q != t.p0);
  // the moments are the run's only (its last tensor's end: the alignment gap after it is not kept)
  CHECK(runs[1]->first_element() == s.begin(1));
  CHECK(runs[1]->m().size() <= s.end(1) - s.begin(1));
  CHECK(runs[1]->m().size() + model::kParamAlign > s.end(1) - s.begin(1));
  for (size_t i = 0; i < runs[1]->m().size(); ++i)
    if (runs[1]->m()[i] != t.plain.m()[s.begin(1) + i]) FAIL("moment " << i << " of run 1 differs");
}
