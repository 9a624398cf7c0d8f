// The dataset operations behind `bert-data` commands, on directories of shards. Each reads and
// validates its input completely (DataError on the first bad value) and writes through
// write_shard (tmp + rename). `progress(done, total)` may be null.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "dataset/packing.h"
#include "formats/shard_io.h"

namespace bert::data {

using Progress = std::function<void(int64_t done, int64_t total)>;

// Creates `dir` for a command that writes shards into it; DataError when it already holds part* files.
void make_shard_dir(const std::string& dir, const char* command);

// A shard path, or every shard (part*) of a directory.
std::vector<std::string> input_files(const std::string& path);

struct DatasetSummary {
  int files = 0;
  int64_t samples = 0;    // rows on disk (packs for packed)
  int64_t sequences = 0;
  int64_t tokens = 0;
  int64_t masked = 0;
  int max_length = 0;     // longest sequence (packed: longest pack)
  std::vector<int64_t> length_hist;  // by sequence length (index = length)
};

// Reads and validates every file; `limits` values of 0 are not checked.
DatasetSummary verify_files(const std::vector<std::string>& files, const Limits& limits, const Progress& progress);

// NVIDIA's per-shard checksum (hdf5_md5.py): md5 of str(list of md5(str(row.tolist()))) over the
// input_ids rows (fixed files: the padded row). One "<basename>\t<md5>" line per file.
std::string chk_line(const std::string& path);
// The .chk list of `files` written to chk_path (as chk_path.tmp, renamed when complete).
void write_chk(const std::vector<std::string>& files, const std::string& chk_path);
// Compares files against a .chk list; returns the mismatches/missing as messages (empty = all match).
std::vector<std::string> check_chk(const std::vector<std::string>& files, const std::string& chk_path);

// The inputs' samples concatenated (files in the given order) and cut into consecutive output
// shards OUT/part_XXXXX_of_MMMMM.hdf5. Each output shard reads only its range of the inputs, in
// blocks, and fixed output is written in blocks, so memory stays at a block (varlength output:
// one output shard); `jobs` worker processes write shards in parallel (worker_pool.h).
//   reshard: shard k ends at floor((k+1)*N/M).
//   chop (NVIDIA's chop_hdf5_files.py): nominal = ceil(N/M); the first M*nominal - N shards hold
//   nominal - 1 samples, the others nominal.
void reshard(const std::vector<std::string>& in, const std::string& out_dir, int shards, Format format,
             const Limits& limits, const Progress& progress, int jobs = 1);
void chop(const std::vector<std::string>& in, const std::string& out_dir, int shards, Format format,
          const Limits& limits, const Progress& progress, int jobs = 1);
std::vector<int64_t> chop_sizes(int64_t total, int shards);  // the rule above

// NVIDIA's shuffle_indices.py + shuffle_samples.py: the (file, sample) pairs of the inputs in the
// given order, shuffled with random.Random(seed).shuffle (CPython's algorithm, seed 24 in the
// reference); output file k (the name and sample count of input file k) takes the next pairs in
// that order. Samples reach their output through spill files (spill.h): memory is 4 bytes per
// sample for the permutation plus one shard.
void shuffle_samples(const std::vector<std::string>& in, const std::string& out_dir, uint64_t seed, Format format,
                     const Limits& limits, const Progress& progress);

// pick_eval_samples.py: of the N samples of the inputs (concatenated in order), the rows
// pick_eval_rows(N, count, 0, count), written to `out` (one file).
void pick_eval(const std::vector<std::string>& in, const std::string& out, int64_t count, Format format,
               const Limits& limits);
// Each file rewritten as `format` (same name) into out_dir; `jobs` worker processes.
void convert_files(const std::vector<std::string>& in, const std::string& out_dir, Format format,
                   const Limits& limits, const Progress& progress, int jobs = 1);
// Samsung's four length bins: sequences of length <= seq_len/4, /2, 3/4, full go to
// OUT/<edge>/<same file name> (e.g. OUT/128, OUT/256, OUT/384, OUT/512 for 512). Returns the
// sequences per bin.
std::vector<int64_t> split4bin(const std::vector<std::string>& in, const std::string& out_dir, const Limits& limits,
                               const Progress& progress);
// Samsung's layout (run_split_and_chop_hdf5_files.py): the same four bins over all inputs (in
// order), each bin cut by the chop rule into `shards` files OUT/<edge>/part_<i>_of_<shards>.hdf5
// (no zero padding, as Samsung's), input layout kept. The trainer's loader reads the folder
// (loader.h: length-balanced batches). Returns the sequences per bin.
std::vector<int64_t> split4bin_chop(const std::vector<std::string>& in, const std::string& out_dir, int shards,
                                    const Limits& limits, const Progress& progress);

struct PackSummary {
  int64_t sequences = 0, packs = 0, tokens = 0;
  double efficiency() const;          // tokens / (packs * seq_len)
  double sequences_per_pack() const;
  int seq_len = 0;
  int files = 0;                      // output shards written
  int64_t strategies = 0;             // global packer: distinct pack shapes used
  PackingBounds bounds;               // global packer: of the input histogram
};
// Each input shard packed on its own into OUT/part_XXXXX (input order), at most max_per_pack per pack.
PackSummary pack_files(const std::vector<std::string>& in, const std::string& out_dir, const Limits& limits,
                       int max_per_pack, uint64_t seed, const Progress& progress);
// All input shards packed together from their global length histogram (packing.h explains the
// passes and the memory bound) into OUT/part_XXXXX, out_shards files (0 = as many as inputs) of
// consecutive packs after a seeded shuffle. On an error the files written so far are removed.
// Progress counts steps: inputs scanned, inputs distributed, output shards written.
PackSummary pack_files_global(const std::vector<std::string>& in, const std::string& out_dir, const Limits& limits,
                              int max_per_pack, uint64_t seed, int out_shards, const Progress& progress);

}  // namespace bert::data
