#include <doctest/doctest.h>

#include "trainer/optim/schedule.h"

using bert::optim::LrSchedule;

TEST_CASE("linear warmup from 0 then linear decay to 0") {
  LrSchedule s{1.0, 10, 0, 100, 1.0};
  CHECK(s.at(0) == 0.0);
  CHECK(s.at(5) == doctest::Approx(0.5));
  CHECK(s.at(9) == doctest::Approx(0.9));
  CHECK(s.at(10) == doctest::Approx(0.9));  // decay uses step, not step - start
  CHECK(s.at(50) == doctest::Approx(0.5));
  CHECK(s.at(100) == 0.0);
  CHECK(s.at(150) == 0.0);
}

TEST_CASE("no warmup: pure decay") {
  LrSchedule s{2.0, 0, 0, 4, 1.0};
  CHECK(s.at(0) == doctest::Approx(2.0));
  CHECK(s.at(1) == doctest::Approx(1.5));
  CHECK(s.at(3) == doctest::Approx(0.5));
}

TEST_CASE("negative start_warmup_step (NVIDIA 8x8 H100 recipe)") {
  // start -200000, warmup 200330, T 700: lr ~ base for 330 steps, then base*(1-330/700) and decaying.
  LrSchedule s{1.0, 200330, -200000, 700, 1.0};
  CHECK(s.at(0) == doctest::Approx(200000.0 / 200330.0));
  CHECK(s.at(329) == doctest::Approx(200329.0 / 200330.0));
  CHECK(s.at(330) == doctest::Approx(1.0 - 330.0 / 700.0));
  CHECK(s.at(699) == doctest::Approx(1.0 / 700.0));
}

TEST_CASE("warmup with a positive start step") {
  LrSchedule s{1.0, 4, 2, 10, 1.0};
  CHECK(s.at(2) == 0.0);
  CHECK(s.at(4) == doctest::Approx(0.5));
  CHECK(s.at(6) == doctest::Approx(0.4));
}

TEST_CASE("poly power") {
  LrSchedule s{1.0, 0, 0, 10, 2.0};
  CHECK(s.at(5) == doctest::Approx(0.25));
}
