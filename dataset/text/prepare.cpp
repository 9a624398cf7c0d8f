#include "dataset/text/prepare.h"

#include <filesystem>
#include <fmt/format.h>
#include <sys/statvfs.h>

#include "formats/data_error.h"
#include "formats/shard_write.h"
#include "dataset/dataset_tools.h"
#include "dataset/output_folder.h"
#include "dataset/text/create_parts.h"

namespace bert::data::text {
namespace {

namespace fs = std::filesystem;

constexpr double kFixedPerTextByte = 28.5, kVarPerTextByte = 12.6, kPackedPerTextByte = 12.6;  // measured 28.5, 12.2, 12.0

struct Layout {
  fs::path out, hdf5, training, t4320, uncompressed, varlength, shuffled, eval_dir, eval_all, eval_10k, eval_var_dir,
      eval_var, packed, chk_train, chk_eval;
  explicit Layout(const std::string& root) : out(root) {
    hdf5 = out / "hdf5";
    training = hdf5 / "training";
    t4320 = hdf5 / "training-4320";
    uncompressed = t4320 / "hdf5_4320_shards_uncompressed";
    varlength = t4320 / "hdf5_4320_shards_varlength";
    shuffled = t4320 / "hdf5_4320_shards_varlength_shuffled";
    eval_dir = hdf5 / "eval";
    eval_all = eval_dir / "eval_all.hdf5";
    eval_10k = eval_dir / "part_eval_10k.hdf5";
    eval_var_dir = hdf5 / "eval_varlength";
    eval_var = eval_var_dir / "part_eval_10k.hdf5";
    packed = out / "packed_data";
    chk_train = hdf5 / "4320_shards_varlength.chk";
    chk_eval = hdf5 / "eval_varlength.chk";
  }
};

bool path_exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

std::vector<std::string> text_parts(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw DataError(fmt::format("{}: not a directory of text parts", dir));
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.rfind("part", 0) == 0) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  if (out.empty()) throw DataError(fmt::format("{}: no text parts (files named part*)", dir));
  return out;
}

uint64_t bytes_of(const std::vector<std::string>& files) {
  uint64_t n = 0;
  for (const auto& f : files) n += fs::file_size(f);
  return n;
}

// Runs `make(partial_dir)` unless `dir` exists, then renames partial -> dir.
template <typename F>
void folder_step(const fs::path& dir, const char* what, F&& make) {
  if (path_exists(dir)) {
    fmt::print("prepare: {}: done before ({})\n", what, dir.string());
    return;
  }
  const std::string partial = partial_folder(dir.string());
  std::error_code ec;
  fs::remove_all(partial, ec);
  fmt::print("prepare: {} -> {}\n", what, dir.string());
  std::fflush(stdout);
  make(partial);
  publish_folder(partial, dir.string());
}

// Runs `make(file)` unless `file` exists; every writer it calls writes FILE.tmp and renames it when complete.
template <typename F>
void file_step(const fs::path& file, const char* what, F&& make) {
  if (path_exists(file)) {
    fmt::print("prepare: {}: done before ({})\n", what, file.string());
    return;
  }
  fmt::print("prepare: {} -> {}\n", what, file.string());
  std::fflush(stdout);
  fs::create_directories(file.parent_path());
  make(file.string());
}

Progress step_progress(const char* what) {
  return [what](int64_t done, int64_t total) {
    if (done == total || done % 100 == 0) fmt::print(stderr, "  [{}/{}] {}\n", done, total, what);
  };
}

}  // namespace

SpaceEstimate estimate_space(const PrepareOptions& opt) {
  const Layout l(opt.out);
  const double text = static_cast<double>(bytes_of(text_parts(opt.text_dir)));
  const double eval = static_cast<double>(fs::file_size(opt.eval_text));
  double need = 0;
  if (!path_exists(l.training)) need += text * kFixedPerTextByte;  // an upper bound when parts are done
  if (!path_exists(l.uncompressed)) need += text * kFixedPerTextByte;
  if (!path_exists(l.varlength)) need += text * kVarPerTextByte;
  if (!path_exists(l.shuffled)) need += 2 * text * kVarPerTextByte;  // output + spill
  if (opt.packed && !path_exists(l.packed)) need += text * (kPackedPerTextByte + kVarPerTextByte);
  if (!path_exists(l.eval_all)) need += eval * kFixedPerTextByte;
  SpaceEstimate s;
  s.needed = static_cast<uint64_t>(need);
  fs::create_directories(l.out);
  struct statvfs st{};
  if (statvfs(l.out.c_str(), &st) == 0) s.available = static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
  return s;
}

void prepare(const PrepareOptions& opt) {
  opt.gen.validate();
  const Layout l(opt.out);
  const auto parts = text_parts(opt.text_dir);
  if (!fs::is_regular_file(opt.eval_text)) throw DataError(fmt::format("{}: no such eval text file", opt.eval_text));
  const Vocab vocab = Vocab::load(opt.vocab);
  const SpaceEstimate space = estimate_space(opt);
  fmt::print("prepare: {} text parts ({:.1f} MB) + {} -> {}; the remaining steps write about {:.1f} GB, {:.1f} GB free\n",
             parts.size(), static_cast<double>(bytes_of(parts)) / 1e6, opt.eval_text, opt.out,
             static_cast<double>(space.needed) / 1e9, static_cast<double>(space.available) / 1e9);
  if (opt.space_check && space.needed > space.available)
    throw DataError(fmt::format("{}: needs about {:.1f} GB free for the remaining steps, {:.1f} GB available "
                                "(free space, or --no-space-check to try anyway)",
                                opt.out, static_cast<double>(space.needed) / 1e9, static_cast<double>(space.available) / 1e9));
  const Limits fixed_lim{vocab.num_ids(), opt.gen.max_seq_length, opt.gen.max_predictions_per_seq};

  // 1. create, resumable per part (in training.partial until every part is there).
  fmt::print("prepare: create -> {}\n", l.training.string());
  std::fflush(stdout);
  const CreateReport r = create_folder(parts, l.training.string(), vocab, opt.gen, opt.jobs, true, [](const CreateProgress& p) {
    fmt::print(stderr, "  [{}/{}] parts, {:.2f} MB/s\n", p.parts_done, p.parts_total,
               p.seconds > 0 ? static_cast<double>(p.bytes_done) / 1e6 / p.seconds : 0.0);
  });
  fmt::print("prepare: create: {} part(s) written, {} done before\n", r.parts, r.skipped);
  const std::vector<std::string>& created = r.outputs;

  // 2-4. chop, variable length, shuffle.
  fs::create_directories(l.t4320);
  folder_step(l.uncompressed, "chop", [&](const std::string& dir) {
    chop(created, dir, opt.shards, Format::fixed, fixed_lim, step_progress("shard written"), opt.jobs);
  });
  folder_step(l.varlength, "to-varlength", [&](const std::string& dir) {
    convert_files(list_shards(l.uncompressed.string()), dir, Format::varlength, fixed_lim, step_progress("file converted"),
                  opt.jobs);
  });
  folder_step(l.shuffled, "shuffle", [&](const std::string& dir) {
    shuffle_samples(list_shards(l.varlength.string()), dir, opt.shuffle_seed, Format::varlength, fixed_lim,
                    step_progress("shuffle step"));
  });

  // 5-7. eval.
  file_step(l.eval_all, "create (eval)", [&](const std::string& file) {
    create_part(CreateJob{opt.eval_text, file}, vocab, opt.gen);
  });
  file_step(l.eval_10k, "pick-eval", [&](const std::string& file) {
    pick_eval({l.eval_all.string()}, file, opt.eval_count, Format::fixed, fixed_lim);
  });
  file_step(l.eval_var, "to-varlength (eval)", [&](const std::string& file) {
    write_shard(file, read_shard(l.eval_10k.string(), fixed_lim), Format::varlength, fixed_lim);
  });

  // 8. packed.
  if (opt.packed)
    folder_step(l.packed, "pack", [&](const std::string& dir) {
      const PackSummary s = pack_files_global(list_shards(l.varlength.string()), dir, fixed_lim, 3, opt.pack_seed,
                                              opt.shards, step_progress("pack step"));
      fmt::print("prepare: pack: {:.4f} sequences/pack, packing efficiency {:.4f}\n", s.sequences_per_pack(), s.efficiency());
    });

  // 9. checksums (NVIDIA's .chk scheme over input_ids).
  file_step(l.chk_train, "checksums (training)", [&](const std::string& file) {
    write_chk(list_shards(l.varlength.string()), file);
  });
  file_step(l.chk_eval, "checksums (eval)", [&](const std::string& file) { write_chk({l.eval_var.string()}, file); });
  fmt::print("prepare: done: {}\n", opt.out);
}

}  // namespace bert::data::text
