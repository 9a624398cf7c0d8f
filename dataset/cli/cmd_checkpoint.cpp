#include <fmt/core.h>
#include <fmt/ranges.h>
#include <memory>

#include "dataset/checkpoint_convert.h"
#include "dataset/cli/commands.h"

namespace bert::data::cli {

void add_convert_checkpoint(CLI::App& app) {
  struct Args {
    std::string prefix, out;
    bool list = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("convert-checkpoint", "TF1 checkpoint (model.ckpt-N) -> weights HDF5 for the trainer");
  cmd->add_option("checkpoint", a->prefix, "checkpoint prefix (model.ckpt-28252) or its .index file")->required();
  cmd->add_option("out", a->out, "output .h5")->required();
  cmd->add_flag("--list", a->list, "print every kept tensor with its shape, and the skipped names");
  cmd->callback([a] {
    const ConvertReport r = convert_tf_checkpoint(a->prefix, a->out);
    if (a->list) {
      const TensorMap written = load_checkpoint_h5(a->out);
      for (const auto& name : r.kept) {
        const auto& shape = written.at(name).shape;
        fmt::print("  {} [{}]\n", name, fmt::join(shape, ","));
      }
      for (const auto& name : r.skipped) fmt::print("  skipped {}\n", name);
    }
    fmt::print("convert-checkpoint: {} weight tensors ({} parameters) -> {}; skipped {} (optimizer slots, "
               "global_step, non-float entries)\n",
               r.kept.size(), r.parameters, a->out, r.skipped.size());
    fmt::print("  layout: one float32 dataset per TF name, TF shapes; dense kernels are [in, out] row-major "
               "(y = x*K + b), not transposed\n");
  });
}

}  // namespace bert::data::cli
