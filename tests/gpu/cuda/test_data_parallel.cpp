// NCCL data parallelism: the gradient buckets reported by CudaModel::backward tile the flat buffer
// exactly; one rank's averaged gradients equal its own; with two GPUs, both ranks end with the mean
// of the two ranks' separately computed gradients. The NCCL id passes through an in-memory KVStore
// (the trainer passes it through PMI2/PMIx/file, trainer/comm).
#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "tests/gpu/cuda/gpu_test.h"
#include "tests/gpu/cuda/test_batches.h"
#include "trainer/cuda/cuda_model.h"
#include "trainer/cuda/data_parallel.h"
#include "trainer/model/config.h"
#include "trainer/model/init.h"

using namespace bert::cuda;
using namespace bert::cuda::test;

namespace {

class MemoryKV : public bert::dist::KVStore {
 public:
  void put(const std::string& k, const std::string& v) override {
    std::lock_guard<std::mutex> l(m_);
    kv_[k] = v;
    cv_.notify_all();
  }
  void fence() override {}
  std::string get(const std::string& k, int) override {
    std::unique_lock<std::mutex> l(m_);
    cv_.wait(l, [&] { return kv_.count(k) > 0; });
    return kv_[k];
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::map<std::string, std::string> kv_;
};

struct Setup {
  bert::model::ParamLayout layout;
  std::vector<float> params;
  Setup() {
    auto cfg = bert::model::bert_config_for_size("tiny");
    cfg.vocab_size = 512;
    cfg.max_position = 64;
    layout = bert::model::make_param_layout(cfg);
    bert::model::init_params(layout, 3, params);
  }
};

// drop_rank: the rank the dropout masks are drawn for (dropout_rng.h puts the rank in the counter).
std::vector<float> grads_of(const Setup& s, const bert::data::Batch& b, NcclDataParallel* dp, uint32_t drop_rank,
                            std::vector<std::pair<size_t, size_t>>* ranges = nullptr) {
  CudaModel m(s.layout, CudaModelLimits{b.rows, b.seq_len, b.num_sequences, b.num_masked()});
  m.set_params(s.params);
  m.zero_grads();
  m.load_batch(b);
  m.forward(bert::model::DropoutContext{true, 5, drop_rank, 0});
  m.backward(1.f, [&](size_t off, size_t n) {
    if (ranges) ranges->emplace_back(off, n);
    if (dp) dp->grads_ready(m.grads_f32(), off, n, m.stream());
  });
  if (dp) dp->finish(m.stream());
  return m.grads();
}

}  // namespace

TEST_CASE("gradient buckets tile the flat buffer; one rank's average is its own gradient") {
  Setup s;
  const auto b = make_batch(64, {{64}, {40}, {33}, {50}}, 512, 1);
  MemoryKV kv;
  bert::dist::ProcessInfo p;
  NcclDataParallel dp(p, kv);
  std::vector<std::pair<size_t, size_t>> ranges;
  const auto g_dp = grads_of(s, b, &dp, 0, &ranges);
  const auto g = grads_of(s, b, nullptr, 0);
  std::sort(ranges.begin(), ranges.end());
  size_t at = 0;
  for (auto [off, n] : ranges) {
    CHECK(off == at);
    at = off + n;
  }
  CHECK(at == s.layout.total);
  CHECK(rel_l2(g_dp, g) == 0.0);
}

TEST_CASE("two GPUs: both ranks hold the mean gradient") {
  int devices = 0;
  BERT_CUDA_CHECK(cudaGetDeviceCount(&devices));
  if (devices < 2) {
    MESSAGE("SKIPPED (needs 2 GPUs): two-rank NCCL data-parallel check");
    return;
  }
  Setup s;
  const auto b0 = make_batch(64, {{64}, {40}, {33}, {50}}, 512, 10), b1 = make_batch(64, {{20, 44}, {60}}, 512, 11);
  std::vector<float> ref0, ref1, out0, out1;
  BERT_CUDA_CHECK(cudaSetDevice(0));
  ref0 = grads_of(s, b0, nullptr, 0);
  ref1 = grads_of(s, b1, nullptr, 1);
  MemoryKV kv;
  std::string errors[2];
  auto rank = [&](int r, const bert::data::Batch& b, std::vector<float>& out) {
    try {
      BERT_CUDA_CHECK(cudaSetDevice(r));
      bert::dist::ProcessInfo p;
      p.rank = r;
      p.size = 2;
      NcclDataParallel dp(p, kv);
      out = grads_of(s, b, &dp, static_cast<uint32_t>(r));
    } catch (const std::exception& e) {
      errors[r] = e.what();
    }
  };
  std::thread t0(rank, 0, std::cref(b0), std::ref(out0)), t1(rank, 1, std::cref(b1), std::ref(out1));
  t0.join();
  t1.join();
  CHECK(errors[0].empty());
  CHECK(errors[1].empty());
  std::vector<float> mean(ref0.size());
  for (size_t i = 0; i < mean.size(); ++i) mean[i] = 0.5f * (ref0[i] + ref1[i]);
  CHECK(rel_l2(out0, mean) < 1e-5);
  CHECK(rel_l2(out1, out0) == 0.0);
}
