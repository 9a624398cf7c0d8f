// Softmax cross-entropy (MLM over the vocabulary with a padded row stride, NSP over 2 classes)
// against cpu::cross_entropy; rows with label -1 are ignored (zero loss and gradient).
#include "tests/gpu/cuda/gpu_test.h"
#include "trainer/cpu/cross_entropy.h"
#include "trainer/cuda/cross_entropy.h"

using namespace bert::cuda;
using namespace bert::cuda::test;

namespace {

void check_cross_entropy(int rows, int vocab, int ld, uint64_t seed) {
  CAPTURE(vocab);
  std::mt19937_64 g(seed);
  auto logits = random_vec(static_cast<size_t>(rows) * ld, g, -8.f, 8.f);
  std::vector<int32_t> labels(rows);
  for (auto& l : labels) l = static_cast<int32_t>(g() % vocab);
  labels[rows / 2] = -1;  // ignored row
  // make one row's argmax equal its label, so accuracy counting is exercised both ways
  logits[static_cast<size_t>(1) * ld + labels[1]] = 9.f;

  std::vector<float> compact;
  std::vector<int32_t> valid_labels;
  for (int r = 0; r < rows; ++r) {
    if (labels[r] < 0) continue;
    compact.insert(compact.end(), logits.begin() + static_cast<size_t>(r) * ld,
                   logits.begin() + static_cast<size_t>(r) * ld + vocab);
    valid_labels.push_back(labels[r]);
  }
  const int nv = static_cast<int>(valid_labels.size());
  const float scale = 1.f / nv;
  std::vector<float> dcompact(compact.size());
  const auto ref = bert::cpu::cross_entropy(compact.data(), valid_labels.data(), nv, vocab, scale, dcompact.data());
  std::vector<float> dref(static_cast<size_t>(rows) * ld, 0.f);
  for (int r = 0, v = 0; r < rows; ++r) {
    if (labels[r] < 0) continue;
    std::copy(dcompact.begin() + static_cast<size_t>(v) * vocab, dcompact.begin() + static_cast<size_t>(v + 1) * vocab,
              dref.begin() + static_cast<size_t>(r) * ld);
    ++v;
  }

  auto d_logits = upload_bf16(logits);
  auto d_labels = DeviceBuffer<int32_t>::from(labels);
  auto d_dlogits = poisoned<bf16>(logits.size());
  auto d_loss = poisoned<float>(rows);
  auto d_correct = poisoned<int32_t>(rows);
  CrossEntropyArgs a;
  a.logits = d_logits.get();
  a.labels = d_labels.get();
  a.rows = rows;
  a.vocab = vocab;
  a.ld = ld;
  a.grad_scale = scale;
  a.dlogits = d_dlogits.get();
  a.loss = d_loss.get();
  a.correct = d_correct.get();
  cross_entropy(a, nullptr);
  sync();
  const auto loss = d_loss.download();
  const auto correct = d_correct.download();
  double loss_sum = 0;
  int64_t correct_sum = 0;
  for (int r = 0; r < rows; ++r) {
    loss_sum += loss[r];
    correct_sum += correct[r];
  }
  CHECK(loss[rows / 2] == 0.f);
  CHECK(correct_sum == ref.correct);
  CHECK(std::abs(loss_sum - ref.loss_sum) / ref.loss_sum < 1e-4);
  CHECK(rel_l2(download_bf16(d_dlogits), dref) < 1e-2);
}

}  // namespace

TEST_CASE("MLM cross entropy over 30522 classes, row stride 30528") { check_cross_entropy(97, 30522, 30528, 1); }
TEST_CASE("NSP cross entropy over 2 classes") { check_cross_entropy(40, 2, 2, 2); }
