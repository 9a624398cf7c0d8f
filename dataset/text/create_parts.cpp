#include "dataset/text/create_parts.h"

#include <filesystem>
#include <fmt/format.h>

#include "dataset/output_folder.h"
#include "dataset/worker_pool.h"
#include "formats/data_error.h"
#include "formats/shard_write.h"

namespace bert::data::text {
namespace {

namespace fs = std::filesystem;
constexpr int64_t kBlockRows = 4096;

uint64_t file_size(const std::string& path) {
  std::error_code ec;
  const auto n = fs::file_size(path, ec);
  return ec ? 0 : static_cast<uint64_t>(n);
}

bool non_empty_folder(const std::string& dir) {
  std::error_code ec;
  return fs::exists(dir, ec) && !(fs::is_directory(dir, ec) && fs::is_empty(dir, ec));
}

int count_existing(const std::vector<CreateJob>& jobs) {
  int n = 0;
  for (const auto& j : jobs) n += fs::exists(j.output) ? 1 : 0;
  return n;
}

// What a killed worker was writing: never a finished output, redone by this run.
void remove_tmp_files(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".tmp") fs::remove(e.path(), ec);
}

std::vector<CreateJob> jobs_into(const std::vector<std::string>& parts, const std::string& dir) {
  std::vector<CreateJob> jobs;
  for (const auto& p : parts) jobs.push_back({p, (fs::path(dir) / (fs::path(p).filename().string() + ".hdf5")).string()});
  return jobs;
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

CreateReport create_folder(const std::vector<std::string>& parts, const std::string& out, const Vocab& vocab,
                           const GeneratorOptions& opt, int workers, bool resume,
                           const std::function<void(const CreateProgress&)>& progress) {
  const std::string partial = partial_folder(out);
  std::error_code ec;
  if (!resume) {
    if (non_empty_folder(out))
      throw DataError(fmt::format("{}: already exists and is not an empty folder (remove it, or --resume to keep its "
                                  "finished parts and make the rest)", out));
    if (fs::is_directory(partial, ec)) remove_tmp_files(partial);
    if (non_empty_folder(partial))
      throw DataError(fmt::format("{}: holds what a stopped run finished (--resume to keep it and make the rest, or "
                                  "remove it)", partial));
  } else if (non_empty_folder(out)) {
    if (fs::exists(partial, ec))
      throw DataError(fmt::format("{}: both it and {} exist (remove the one not to keep)", out, partial));
    const auto done = jobs_into(parts, out);
    if (count_existing(done) == static_cast<int>(done.size())) {
      CreateReport r;
      r.skipped = static_cast<int>(done.size());
      for (const auto& j : done) r.outputs.push_back(j.output);
      return r;
    }
    fs::rename(out, partial, ec);  // new parts: OUT is incomplete until they are made
    if (ec) throw DataError(fmt::format("{}: cannot rename it to {} to add parts: {}", out, partial, ec.message()));
  }
  fs::create_directories(partial, ec);
  if (ec) throw DataError(fmt::format("{}: cannot create: {}", partial, ec.message()));
  remove_tmp_files(partial);
  const auto jobs = jobs_into(parts, partial);
  CreateReport report;
  try {
    report = create_parts(jobs, vocab, opt, workers, resume, progress);
  } catch (const DataError& e) {
    const int kept = count_existing(jobs);
    if (kept == 0) {
      fs::remove_all(partial, ec);
      throw;
    }
    throw DataError(fmt::format("{} ({} finished output(s) kept in {}: --resume makes the rest)", e.what(), kept, partial));
  } catch (...) {
    if (count_existing(jobs) == 0) fs::remove_all(partial, ec);
    throw;
  }
  publish_folder(partial, out);
  for (const auto& j : jobs_into(parts, out)) report.outputs.push_back(j.output);
  return report;
}

}  // namespace bert::data::text
