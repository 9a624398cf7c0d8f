#include <fmt/core.h>
#include <memory>
#include <thread>

#include "dataset/cli/commands.h"
#include "dataset/text/prepare.h"

namespace bert::data::cli {

void add_prepare(CLI::App& app) {
  auto o = std::make_shared<text::PrepareOptions>();
  auto* cmd = app.add_subcommand(
      "prepare", "the whole MLPerf chain: text parts + eval.txt + vocab -> NVIDIA's folder layout (resumable)");
  cmd->add_option("--text", o->text_dir, "folder of text parts part-* (results4/ of results_text.tar.gz)")->required();
  cmd->add_option("--eval-text", o->eval_text, "eval.txt")->required();
  cmd->add_option("--vocab", o->vocab, "vocab.txt")->required();
  cmd->add_option("--out", o->out, "output folder (gets hdf5/ and packed_data/)")->required();
  cmd->add_option("--jobs", o->jobs, "worker processes for create, chop and to-varlength (0 = one per core)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--shards", o->shards, "training shards")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--eval-count", o->eval_count, "eval samples picked")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--shuffle-seed", o->shuffle_seed, "seed of the sample shuffle")->capture_default_str();
  cmd->add_option("--pack-seed", o->pack_seed, "seed of the packer's order")->capture_default_str();
  cmd->add_flag("!--no-packed", o->packed, "skip packed_data/");
  cmd->add_flag("!--no-space-check", o->space_check, "start even if the free space looks too small");
  add_generator_options(cmd, o->gen);
  cmd->callback([o] {
    if (o->jobs == 0) o->jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    text::prepare(*o);
  });
}

}  // namespace bert::data::cli
