// The tiny BERT (vocab 1024) with seeded weights, and a packed batch of 3 rows (some holding 2-3
// sequences): the model-level CPU tests that compare two ways of computing the same step share it.
#pragma once
#include <vector>

#include "bench/trainer_throughput/bench_batches.h"
#include "trainer/data/batch.h"
#include "trainer/model/config.h"
#include "trainer/model/init.h"
#include "trainer/model/params.h"

namespace bert::test {

inline model::BertConfig tiny_config() {
  model::BertConfig cfg = model::bert_config_for_size(model::ModelSize::Tiny);
  cfg.vocab_size = 1024;
  return cfg;
}

struct TinyModel {
  model::BertConfig cfg = tiny_config();
  model::ParamLayout layout = model::make_param_layout(cfg);
  std::vector<float> params;
  data::Batch packed = bench::make_packed_batch(3, 128, cfg.vocab_size, 11);
  TinyModel() { model::init_params(layout, 7, params); }
};

}  // namespace bert::test
