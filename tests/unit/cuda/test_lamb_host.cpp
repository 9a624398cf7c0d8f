// Host-side parts of the fused LAMB: the learning rate its kernel computes (lamb_learning_rate is
// host and device, so this is the device's own formula) follows the run's schedule, poly power
// included, and the tensor table marks exactly the reference's exclusions.
#include <doctest/doctest.h>

#include <cmath>

#include "trainer/cuda/lamb.h"
#include "trainer/cuda/lamb_tensors.h"
#include "trainer/model/config.h"
#include "trainer/model/params.h"
#include "trainer/optim/schedule.h"

using namespace bert::cuda;

TEST_CASE("device learning rate: warmup, then poly decay with the schedule's power") {
  LambHyper h;
  h.schedule = bert::optim::LrSchedule{2.0, 4, 0, 10, 2.0};
  CHECK(lamb_learning_rate(h, 1) == doctest::Approx(0.5));               // warmup: 2 * 1/4
  CHECK(lamb_learning_rate(h, 5) == doctest::Approx(2.0 * 0.5 * 0.5));   // 2 * (1 - 5/10)^2
  CHECK(lamb_learning_rate(h, 8) == doctest::Approx(2.0 * 0.2 * 0.2));
  h.schedule.power = 0.5;
  CHECK(lamb_learning_rate(h, 6) == doctest::Approx(2.0 * std::sqrt(0.4)));
  CHECK(lamb_learning_rate(h, 10) == 0.f);
}

TEST_CASE("device learning rate == optim::LrSchedule in fp32, negative start_warmup_step included") {
  struct S { double base; int warm, start, total; };
  for (const S s : {S{2.5e-3, 200330, -200000, 700}, S{4e-4, 10, 0, 100}, S{9.6e-4, 0, 0, 3680}}) {
    LambHyper h;
    h.schedule = bert::optim::LrSchedule{s.base, s.warm, s.start, s.total, 1.0};
    for (int step : {0, 1, 5, 9, 10, 11, 329, 330, 331, 699, 700, 800, 3679})
      CHECK(std::abs(lamb_learning_rate(h, step) - h.schedule.at(step)) <= 1e-6 * s.base);
  }
}

TEST_CASE("LAMB tensor table: every layout tensor once, exclusions as the reference") {
  const auto layout = bert::model::make_param_layout(bert::model::bert_config_for_size(bert::model::ModelSize::Base));
  const auto t = lamb_tensors(layout);
  REQUIRE(t.size() == layout.tensors.size());
  size_t excluded = 0, elements = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    CHECK(t[i].offset == static_cast<int64_t>(layout.tensors[i].offset));
    CHECK(t[i].size == static_cast<int64_t>(layout.tensors[i].size));
    CHECK(t[i].excluded == bert::model::excluded_from_decay(layout.tensors[i].name));
    excluded += t[i].excluded;
    elements += static_cast<size_t>(t[i].size);
  }
  CHECK(elements == layout.num_params());
  // 12 layers x (6 biases+LN in attention: q,k,v,out bias + gamma,beta = 6; ffn: 2 biases + 2 LN = 4)
  // + embeddings LN 2 + pooler bias 1 + MLM transform bias + LN 3 + output bias 1 + NSP bias 1
  CHECK(excluded == 12 * 10 + 2 + 1 + 3 + 1 + 1);
}
