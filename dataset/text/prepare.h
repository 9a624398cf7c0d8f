// `bert-data prepare`: the whole MLPerf chain from the text (results4/ parts, eval.txt, vocab.txt)
// to the folder layout of NVIDIA's prepare_data.sh:
//   OUT/hdf5/training/<part>.hdf5                                   create, one per text part
//   OUT/hdf5/training-4320/hdf5_4320_shards_uncompressed/           chop (fixed)
//   OUT/hdf5/training-4320/hdf5_4320_shards_varlength/              to-varlength
//   OUT/hdf5/training-4320/hdf5_4320_shards_varlength_shuffled/     shuffle (seed 24)
//   OUT/hdf5/eval/eval_all.hdf5, part_eval_10k.hdf5                 create on eval.txt, pick-eval
//   OUT/hdf5/eval_varlength/part_eval_10k.hdf5                      to-varlength
//   OUT/packed_data/part_XXXXX                                      pack (global) of the varlength shards
//   OUT/hdf5/4320_shards_varlength.chk, eval_varlength.chk          NVIDIA's .chk scheme
// Resumable: a step whose output exists is not redone (folders are filled as NAME.partial and
// renamed when complete; files are written as NAME.tmp and renamed; `create` keeps finished
// parts), so a killed run leaves nothing that looks complete. Before starting, the free space is
// compared with an estimate of what the remaining steps write.
#pragma once
#include <cstdint>
#include <string>

#include "dataset/text/pretraining_data.h"

namespace bert::data::text {

struct PrepareOptions {
  std::string text_dir, eval_text, vocab, out;
  int jobs = 1;              // worker processes of create, chop and to-varlength
  int shards = 4320;
  int64_t eval_count = 10000;
  uint64_t shuffle_seed = 24;
  uint64_t pack_seed = 12345;
  bool packed = true;        // packed_data/
  bool space_check = true;   // refuse to start without room for the remaining steps
  GeneratorOptions gen;
};

struct SpaceEstimate {
  uint64_t needed = 0;     // bytes the remaining steps write (estimate)
  uint64_t available = 0;  // free bytes for the user at OUT
};
// Bytes per byte of text (measured on generated Wikipedia-like text at 512/76, 12,000 samples per
// MB like the MLPerf data): fixed HDF5 28.5, variable-length 12.6, packed 12.6 (measured 12.2 and 12.0,
// rounded up); spill files of shuffle and pack need the variable-length size once more while they run.
SpaceEstimate estimate_space(const PrepareOptions& opt);

void prepare(const PrepareOptions& opt);  // DataError on the first problem (the step's own message)

}  // namespace bert::data::text
