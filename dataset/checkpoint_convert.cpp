#include "dataset/checkpoint_convert.h"

#include <fmt/format.h>
#include <set>
#include <sstream>

#include "formats/data_error.h"
#include "dataset/tf_bundle.h"

namespace bert::data {

bool is_optimizer_or_step(const std::string& tf_name) {
  static const std::set<std::string> skip{"adam_v", "adam_m", "global_step", "LAMB", "LAMB_1",
                                          "beta1_power", "beta2_power", "Momentum"};
  std::stringstream ss(tf_name);
  std::string part;
  while (std::getline(ss, part, '/'))
    if (skip.count(part)) return true;
  return false;
}

ConvertReport convert_tf_checkpoint(const std::string& prefix, const std::string& out_h5) {
  TfBundle bundle(prefix);
  ConvertReport report;
  TensorMap tensors;
  for (const TfEntry& e : bundle.entries()) {
    // Non-float entries (DT_STRING object graphs, integer counters) are bookkeeping, not weights.
    if (is_optimizer_or_step(e.name) || e.dtype != 1) {
      bundle.bytes(e);  // still bounds- and crc-checked: a corrupt file is reported, not half-converted
      report.skipped.push_back(e.name);
      continue;
    }
    Tensor t;
    t.shape = e.shape;
    t.values = bundle.read_float(e);
    report.parameters += t.numel();
    report.kept.push_back(e.name);
    tensors.emplace(e.name, std::move(t));
  }
  if (tensors.empty()) throw DataError(fmt::format("{}.index: no weight tensors", bundle.prefix()));
  save_checkpoint_h5(out_h5, tensors, bundle.prefix());
  return report;
}

}  // namespace bert::data
