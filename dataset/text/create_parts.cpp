#include "dataset/text/create_parts.h"

#include <filesystem>
#include <fmt/format.h>

#include "trainer/data/data_error.h"
#include "trainer/data/shard_io.h"
#include "dataset/worker_pool.h"

namespace bert::data::text {
namespace {

namespace fs = std::filesystem;
constexpr int64_t kBlockRows = 4096;

uint64_t file_size(const std::string& path) {
  std::error_code ec;
  const auto n = fs::file_size(path, ec);
  return ec ? 0 : static_cast<uint64_t>(n);
}

}  // namespace

int64_t create_part(const CreateJob& job, const Vocab& vocab, const GeneratorOptions& opt) {
  opt.validate();
  const Documents docs = read_documents(job.input, vocab, opt.lower_case);
  const Instances inst = generate_instances(docs, vocab, opt);
  const int64_t n = static_cast<int64_t>(inst.rows.size());
  if (n == 0)  // an empty shard with exit 0 would pass for a part made
    throw DataError(fmt::format("{}: no training instances: the text part is empty (or holds no document the generator can "
                                "use)", job.input));
  FixedShardWriter out(job.output, n, Limits{vocab.num_ids(), opt.max_seq_length, opt.max_predictions_per_seq});
  for (int64_t first = 0; first < n; first += kBlockRows) {
    SequenceSet block;
    expand_rows(docs, inst, vocab, first, std::min(kBlockRows, n - first), block);
    out.write(block);
  }
  out.finish();
  return n;
}

CreateReport create_parts(const std::vector<CreateJob>& jobs, const Vocab& vocab, const GeneratorOptions& opt,
                          int workers, bool resume, const std::function<void(const CreateProgress&)>& progress) {
  opt.validate();
  CreateReport report;
  std::vector<size_t> todo;
  uint64_t bytes_total = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (!fs::is_regular_file(jobs[i].input)) throw DataError(fmt::format("{}: no such text part", jobs[i].input));
    if (fs::exists(jobs[i].output)) {
      if (!resume)
        throw DataError(fmt::format("{}: already exists (remove it, or resume to keep finished parts)", jobs[i].output));
      ++report.skipped;
      continue;
    }
    todo.push_back(i);
    bytes_total += file_size(jobs[i].input);
  }
  PoolReport r;
  try {
    r = run_in_workers(
        static_cast<int>(todo.size()), workers, [&](int k) { return create_part(jobs[todo[k]], vocab, opt); },
        [&](int k) { return file_size(jobs[todo[k]].input); },
        [&](const PoolProgress& p) {
          if (progress) progress(CreateProgress{p.done, p.total, p.weight_done, bytes_total, p.seconds});
        });
  } catch (...) {
    for (const auto& j : jobs) {
      std::error_code ec;
      fs::remove(j.output + ".tmp", ec);
    }
    throw;
  }
  report.parts = r.done;
  report.instances = r.sum;
  report.bytes = r.weight;
  report.seconds = r.seconds;
  report.peak_rss_kb = r.peak_rss_kb;
  return report;
}

}  // namespace bert::data::text
