// The training-data loader and eval-set loader the trainer calls.
//
// Training: the shards of `dir` (or `files`) in name order are reshuffled every epoch with a
// permutation drawn from (seed, epoch), identical on every rank; rank r reads shards r, r+W, r+2W,
// ... of that order (W = world_size; fewer shards than ranks is an error: reshard). Inside a
// shard the sample order is shuffled from (seed, epoch, shard). Batches stream across shard
// boundaries; an epoch ends when the rank's shards are used up. A background thread reads and
// assembles up to `prefetch` batches ahead. Layout of a Batch: see batch.h. With format packed,
// `batch_size` counts packs (rows) and Batch::num_sequences the sequences inside them.
//
// A `dir` of length-bin folders (128/ 256/ 384/ 512/, Samsung's layout, `bert-data split4bin
// --shards N`) is read group by group instead: shard k of every bin together, each batch with a
// fixed count per bin (loader_bins.h), so every rank's batches carry the same mix of lengths.
//
// Eval: the first `num_examples` samples of the eval file (or of the files named *part* in a
// directory, in name order, as NVIDIA does), split into W contiguous slices (rank r gets
// [r*N/W, (r+1)*N/W)), then cut into padded batches of `batch_size` in file order; the last batch
// may have fewer rows. Masks are baked into the file: no randomness.
//
// Every file problem throws DataError with the file, dataset and sample (trainer: exit 2).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "trainer/data/batch.h"
#include "formats/data_error.h"
#include "formats/shard_io.h"

namespace bert::data {

struct LoaderOptions {
  std::string dir;                  // directory of shards, or
  std::vector<std::string> files;   // explicit shard list (used when non-empty)
  Format format = Format::varlength;  // packed, or padded (fixed and varlength both): checked per file
  int rank = 0;
  int world_size = 1;
  int batch_size = 1;               // rows per batch (packs when packed)
  int seq_len = 512;
  int max_pred = 76;
  int vocab_size = 30522;
  uint64_t seed = 0;
  int prefetch = 4;                 // batches assembled ahead by the background thread
  int epochs = 0;                   // 0 = endless; otherwise next() returns false after this many
  // `dir` in Samsung's 4-bin layout (loader_bins.h): sequences per batch from each bin, summing to
  // batch_size; empty = the bins' shares of the first group.
  std::vector<int> bin_batch_counts;
};

class Loader {
 public:
  explicit Loader(LoaderOptions options);  // checks the shard list; throws DataError
  ~Loader();
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  // Fills `batch` with the next batch (always `batch_size` rows). Returns false once `epochs`
  // epochs are done. Rethrows a DataError raised by the background thread.
  bool next(Batch& batch);
  int epoch() const;                  // epoch of the last batch returned (0-based)
  int64_t sequences_served() const;   // sequences in all batches returned so far (never packs)
  const std::vector<std::string>& shards() const;  // all shards, name order

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct EvalSet {
  std::vector<Batch> batches;
  int64_t num_sequences = 0;  // this rank's sequences
  int64_t num_masked = 0;     // this rank's masked tokens (the accuracy denominator part)
  int64_t total_available = 0;  // N: the samples of the eval files, of which rows int(i*N/num_examples) are used
};

// NVIDIA's pick_eval_samples.py rule: of `total` samples, the rows int(i*total/count) for
// first <= i < last (Python's float division; ascending). Throws DataError when total < count.
std::vector<int64_t> pick_eval_rows(int64_t total, int64_t count, int64_t first, int64_t last);

EvalSet load_eval(const std::string& path, int vocab_size, int seq_len, int max_pred,
                  int64_t num_examples, int rank, int world_size, int batch_size);

// Assembles one padded batch from sequences [first, first+count) of `seqs` (one per row), or a
// packed batch from packs [first, first+count) when seqs.packed(). `order` (optional) maps batch
// slots to sequence (or pack) indices.
void assemble_batch(const SequenceSet& seqs, const int64_t* order, int64_t first, int count,
                    int seq_len, Batch& batch);

}  // namespace bert::data
