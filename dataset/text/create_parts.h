// `bert-data create`: text parts -> fixed-length HDF5 (one output per part), each part exactly as
// the reference generator makes it (pretraining_data.h). Parts run in `jobs` worker processes
// (one part at a time each: memory per worker is one part's tokens and compact instances, and
// the output is written in blocks); jobs = 1 runs in this process.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "dataset/text/pretraining_data.h"

namespace bert::data::text {

struct CreateJob {
  std::string input;   // text part
  std::string output;  // HDF5 file (written as OUTPUT.tmp, renamed when complete)
};

struct CreateProgress {
  int parts_done = 0, parts_total = 0;
  uint64_t bytes_done = 0, bytes_total = 0;  // input text of finished parts
  double seconds = 0;
};

struct CreateReport {
  int parts = 0;            // parts written (skipped ones not counted)
  int skipped = 0;          // outputs already present (resume)
  int64_t instances = 0;
  uint64_t bytes = 0;       // input text of the parts written
  double seconds = 0;
  long peak_rss_kb = 0;     // largest peak RSS of one worker (this process when jobs = 1)
  std::vector<std::string> outputs;  // create_folder: every part's output, in OUT, in the parts' order
};

// One part; returns the number of instances.
int64_t create_part(const CreateJob& job, const Vocab& vocab, const GeneratorOptions& opt);

// All parts. With `resume`, jobs whose output exists are skipped; otherwise an existing output is
// a DataError. On any error the other workers are stopped, no .tmp is left and the first error
// is thrown (DataError naming the file).
CreateReport create_parts(const std::vector<CreateJob>& jobs, const Vocab& vocab, const GeneratorOptions& opt,
                          int workers, bool resume, const std::function<void(const CreateProgress&)>& progress);

// `bert-data create` and prepare's step 1: OUT/<part name>.hdf5 for every part, made in OUT.partial and renamed
// to OUT when every output is there, so a failed or killed run never leaves a set that looks whole. Without
// `resume`, OUT must not exist (or be empty) and OUT.partial must hold no part. With `resume`, the finished
// outputs of OUT.partial are kept and the rest made; a complete OUT that lacks some outputs (new parts) is
// moved back to OUT.partial for that. On an error, OUT.partial is kept when it holds finished outputs (the
// error then says so) and removed when not.
CreateReport create_folder(const std::vector<std::string>& parts, const std::string& out, const Vocab& vocab,
                           const GeneratorOptions& opt, int workers, bool resume,
                           const std::function<void(const CreateProgress&)>& progress);

}  // namespace bert::data::text
