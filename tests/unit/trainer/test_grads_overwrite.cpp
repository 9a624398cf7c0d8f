// backward(Grads::overwrite) into a gradient buffer holding anything (finite garbage, or NaN) gives
// exactly what backward(Grads::add) gives into zeros: every tensor's gradient is set by its first
// write, and nothing of the old contents leaks in (the step's zeroing pass CpuBackend no longer makes).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "tests/unit/trainer/tiny_model.h"
#include "trainer/cpu/bert_cpu.h"

using namespace bert;

TEST_CASE("backward overwrite into garbage or NaN equals backward add into zeros, tensor by tensor") {
  const test::TinyModel tiny;
  const auto& [cfg, layout, params, packed] = tiny;
  cpu::BertCpu m(layout);
  m.forward(packed, params.data(), model::DropoutContext{true, 5, 0, 3});
  std::vector<float> added(layout.total, 0.0f);
  m.backward(params.data(), added.data(), 0.5f);
  for (const float old : {12345.0f, std::numeric_limits<float>::quiet_NaN()}) {
    CAPTURE(old);
    std::vector<float> set(layout.total, old);
    m.forward(packed, params.data(), model::DropoutContext{true, 5, 0, 3});
    m.backward(params.data(), set.data(), 0.5f, cpu::BertCpu::Grads::overwrite);
    for (const auto& t : layout.tensors) {
      INFO("gradient of " << t.name);
      size_t differ = 0;
      for (size_t i = t.offset; i < t.offset + t.size; ++i) differ += !(set[i] == added[i]);
      CHECK(differ == 0);
    }
  }
}
