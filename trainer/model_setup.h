// From the run config to a model: the BERT config (named size or bert_config.json, with vocabulary
// size from the data) and the initial flat parameters (HDF5 checkpoint or truncated-normal init).
#pragma once
#include <string>
#include <vector>

#include "trainer/model/params.h"
#include "trainer/run_config.h"

namespace bert::trainer {

// ModelError on a bad bert_config or a vocab/sequence length the model cannot hold.
model::BertConfig resolve_model_config(const RunConfig& cfg);

// Loads cfg.init_checkpoint into the layout's flat buffer (every tensor present with the model's
// shape, all values finite; extra tensors are an error too), or initialises from cfg.seed.
// data::DataError for an unreadable file, model::ModelError for a checkpoint that does not fit.
std::vector<float> initial_params(const model::ParamLayout& layout, const RunConfig& cfg);

}  // namespace bert::trainer
