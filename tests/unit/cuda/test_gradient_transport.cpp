// Which way a CUDA run's ranks average their gradients: NCCL between distinct GPUs, the host collective
// when a GPU is shared (NCCL refuses two ranks on one device), nothing for one rank; and the device ids
// every rank decides from; the host path's maximum of the FP8 amaxes over the ranks.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "trainer/cuda/gradient_transport.h"
#include "trainer/cuda/host_data_parallel.h"

using bert::cuda::GradientTransport;
using bert::cuda::choose_gradient_transport;

TEST_CASE("one rank needs no transport; distinct GPUs take NCCL; a shared GPU takes the host collective") {
  CHECK(choose_gradient_transport({}) == GradientTransport::none);
  CHECK(choose_gradient_transport({"a"}) == GradientTransport::none);
  CHECK(choose_gradient_transport({"a", "b"}) == GradientTransport::nccl);
  CHECK(choose_gradient_transport({"a", "b", "c", "d"}) == GradientTransport::nccl);
  CHECK(choose_gradient_transport({"a", "a"}) == GradientTransport::host);          // two ranks, one GPU
  CHECK(choose_gradient_transport({"a", "b", "c", "a"}) == GradientTransport::host);  // any GPU named twice
  CHECK(choose_gradient_transport({"a", "b", "b", "c"}) == GradientTransport::host);
  CHECK(std::string(to_string(GradientTransport::host)) == "host");
  CHECK(std::string(to_string(GradientTransport::nccl)) == "nccl");
}

TEST_CASE("device ids: every rank's 16 UUID bytes, rank by rank, as hex") {
  std::vector<uint8_t> gathered(3 * 16, 0);
  for (int i = 0; i < 16; ++i) {
    gathered[static_cast<size_t>(i)] = static_cast<uint8_t>(i);              // rank 0: 00 01 .. 0f
    gathered[static_cast<size_t>(16 + i)] = static_cast<uint8_t>(0xf0 + i);  // rank 1: f0 .. ff
    gathered[static_cast<size_t>(32 + i)] = static_cast<uint8_t>(i);         // rank 2: rank 0's GPU
  }
  const auto ids = bert::cuda::device_ids_of(gathered, 3);
  REQUIRE(ids.size() == 3);
  CHECK(ids[0] == "000102030405060708090a0b0c0d0e0f");
  CHECK(ids[1] == "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
  CHECK(ids[2] == ids[0]);
  CHECK(choose_gradient_transport(ids) == GradientTransport::host);
  CHECK_THROWS_AS(bert::cuda::device_ids_of(gathered, 2), std::invalid_argument);
}

TEST_CASE("the FP8 amaxes' maximum over the ranks, a NaN kept") {
  const float gathered[8] = {1.f, 5.f, NAN, 0.f, 3.f, 2.f, 0.f, INFINITY};  // 2 ranks x 4 amaxes, rank-major
  float out[4];
  bert::cuda::max_over_ranks(gathered, 2, 4, out);
  CHECK(out[0] == 3.f);
  CHECK(out[1] == 5.f);
  CHECK(std::isnan(out[2]));
  CHECK(std::isinf(out[3]));
  bert::cuda::max_over_ranks(gathered, 1, 4, out);  // one rank: its own
  CHECK(out[1] == 5.f);
  CHECK(out[3] == 0.f);
}
