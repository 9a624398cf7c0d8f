#include <doctest/doctest.h>
#include <hdf5.h>

#include <filesystem>
#include <fstream>

#include "test_util.h"
#include "dataset/packing.h"
#include "formats/shard_write.h"

using namespace bert::data;
using bert::data::test::make_sequences;
using bert::data::test::TempDir;

namespace {

void check_equal(const SequenceSet& a, const SequenceSet& b) {
  REQUIRE(a.size() == b.size());
  CHECK(a.input_ids == b.input_ids);
  CHECK(a.segment_ids == b.segment_ids);
  CHECK(a.tok_off == b.tok_off);
  CHECK(a.mlm_positions == b.mlm_positions);
  CHECK(a.mlm_ids == b.mlm_ids);
  CHECK(a.mlm_off == b.mlm_off);
  CHECK(a.nsp_labels == b.nsp_labels);
}

std::string error_of(const std::string& path, const Limits& lim) {
  try {
    read_shard(path, lim);
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

// A fixed-layout file written with the raw HDF5 API, one dataset replaced or left out.
void write_raw_fixed(const std::string& path, const std::string& skip, hid_t ids_type, int16_t bad_id = 0) {
  const hsize_t n = 2, L = 8, P = 2;
  hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  auto put = [&](const char* name, hid_t ftype, hid_t mtype, const void* data, int rank, hsize_t cols) {
    if (skip == name) return;
    hsize_t d[2] = {n, cols};
    hid_t sp = H5Screate_simple(rank, d, nullptr);
    hid_t ds = H5Dcreate2(f, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    H5Dclose(ds);
    H5Sclose(sp);
  };
  int32_t ids32[16] = {101, 200, 102, 300, 102, 0, 0, 0, 101, 201, 102, 301, 102, 0, 0, 0};
  int16_t ids16[16];
  for (int i = 0; i < 16; ++i) ids16[i] = static_cast<int16_t>(ids32[i]);
  ids16[9] = bad_id ? bad_id : ids16[9];
  int8_t mask[16] = {1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0};
  int8_t seg[16] = {0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0};
  int16_t pos[4] = {1, 3, 1, 0}, mid[4] = {200, 300, 201, 0};
  int8_t nsp[2] = {0, 1};
  if (ids_type == H5T_STD_I32LE) put("input_ids", H5T_STD_I32LE, H5T_NATIVE_INT, ids32, 2, L);
  else put("input_ids", H5T_STD_I16LE, H5T_NATIVE_SHORT, ids16, 2, L);
  put("input_mask", H5T_STD_I8LE, H5T_NATIVE_SCHAR, mask, 2, L);
  put("segment_ids", H5T_STD_I8LE, H5T_NATIVE_SCHAR, seg, 2, L);
  put("masked_lm_positions", H5T_STD_I16LE, H5T_NATIVE_SHORT, pos, 2, P);
  put("masked_lm_ids", H5T_STD_I16LE, H5T_NATIVE_SHORT, mid, 2, P);
  put("next_sentence_labels", H5T_STD_I8LE, H5T_NATIVE_SCHAR, nsp, 1, 0);
  H5Fclose(f);
}

}  // namespace

TEST_CASE("fixed, varlength and packed shards round-trip through HDF5") {
  TempDir tmp;
  const SequenceSet seqs = make_sequences(50);
  const Limits lim{1024, 32, 4};
  for (Format f : {Format::fixed, Format::varlength}) {
    const std::string path = tmp.file(std::string("part_") + format_name(f) + ".hdf5");
    write_shard(path, seqs, f, lim);
    CHECK(detect_format(path) == f);
    CHECK(count_samples(path) == 50);
    check_equal(read_shard(path, lim), seqs);
    const SequenceSet part = read_shard(path, lim, 10, 5);
    REQUIRE(part.size() == 5);
    CHECK(part.length(0) == seqs.length(10));
    CHECK(part.nsp_labels[4] == seqs.nsp_labels[14]);
  }
  const SequenceSet packed = pack_sequences(seqs, 32, 3, 7);
  const std::string path = tmp.file("part_00000");
  write_shard(path, packed, Format::packed, lim);
  CHECK(detect_format(path) == Format::packed);
  CHECK(count_samples(path) == packed.num_packs());
  const SequenceSet back = read_shard(path, lim);
  check_equal(back, packed);
  CHECK(back.pack_off == packed.pack_off);
  const ShardInfo info = shard_info(tmp.file("part_fixed.hdf5"));
  CHECK(info.width == 32);
  CHECK(info.mlm_width == 4);
}

TEST_CASE("reading reports file, dataset and sample of the first bad value") {
  TempDir tmp;
  const SequenceSet seqs = make_sequences(20);
  const std::string path = tmp.file("part_a.hdf5");
  write_shard(path, seqs, Format::varlength, Limits{1024, 32, 4});
  // make_sequences: sample i has ids 104 + i .. 104 + i + len - 1 (< 155 here): vocab 130 fails
  const std::string err = error_of(path, Limits{130, 32, 4});
  CHECK(err.find(path) != std::string::npos);
  CHECK(err.find("input_ids") != std::string::npos);
  CHECK(err.find("sample ") != std::string::npos);
  CHECK(err.find("vocab size 130") != std::string::npos);
  CHECK(error_of(path, Limits{1024, 10, 4}).find("seq_len 10") != std::string::npos);
  CHECK(error_of(path, Limits{1024, 32, 1}).find("max_predictions_per_seq 1") != std::string::npos);
}

TEST_CASE("wrong dtype, missing dataset, id >= vocab, truncated and non-HDF5 files are clear errors") {
  TempDir tmp;
  const Limits lim{1024, 8, 2};
  const std::string good = tmp.file("good.hdf5");
  write_raw_fixed(good, "", H5T_STD_I16LE);
  CHECK(read_shard(good, lim).size() == 2);

  const std::string wrong = tmp.file("wrong_dtype.hdf5");
  write_raw_fixed(wrong, "", H5T_STD_I32LE);
  CHECK(error_of(wrong, lim).find("dataset input_ids: dtype int32, expected int16") != std::string::npos);

  const std::string missing = tmp.file("missing.hdf5");
  write_raw_fixed(missing, "masked_lm_ids", H5T_STD_I16LE);
  CHECK(error_of(missing, lim).find("dataset masked_lm_ids: missing") != std::string::npos);

  const std::string big = tmp.file("big_id.hdf5");
  write_raw_fixed(big, "", H5T_STD_I16LE, 5000);
  const std::string e = error_of(big, lim);
  CHECK(e.find("dataset input_ids, sample 1: token 1: id 5000 outside [0, vocab size 1024)") != std::string::npos);
  // no vocabulary given (bert-data verify --vocab 0): only the sign is checked, and the message says so (issue 37)
  const std::string negative = tmp.file("negative_id.hdf5");
  write_raw_fixed(negative, "", H5T_STD_I16LE, -3);
  const std::string n = error_of(negative, Limits{0, 8, 2});
  CHECK(n.find("token 1: id -3 is negative") != std::string::npos);
  CHECK(n.find("vocab size 0") == std::string::npos);

  const SequenceSet seqs = make_sequences(500);
  const std::string full = tmp.file("full.hdf5");
  write_shard(full, seqs, Format::varlength, Limits{1024, 32, 4});
  const auto size = std::filesystem::file_size(full);
  for (auto keep : {size / 2, size - 100, uintmax_t{1000}, uintmax_t{10}}) {
    const std::string cut = tmp.file("cut.hdf5");
    std::filesystem::copy_file(full, cut, std::filesystem::copy_options::overwrite_existing);
    std::filesystem::resize_file(cut, keep);
    const std::string msg = error_of(cut, Limits{1024, 32, 4});
    CAPTURE(keep);
    CHECK(msg.find(cut) == 0);
  }
  const std::string text = tmp.file("not_hdf5.hdf5");
  std::ofstream(text) << "hello";
  CHECK(error_of(text, lim).find("not an HDF5 file") != std::string::npos);
  CHECK(error_of(tmp.file("absent.hdf5"), lim).find("cannot open") != std::string::npos);
}

TEST_CASE("fixed layout checks mask and position padding") {
  TempDir tmp;
  SequenceSet s;
  const int16_t ids[4] = {101, 200, 201, 102};
  const int8_t seg[4] = {0, 0, 0, 0};
  const int16_t pos[2] = {2, 1};  // not ascending
  const int16_t mid[2] = {201, 200};
  s.append(ids, seg, 4, pos, mid, 2, 0);
  const std::string path = tmp.file("p.hdf5");
  write_shard(path, s, Format::fixed, Limits{1024, 8, 2});
  CHECK(error_of(path, Limits{1024, 8, 2}).find("positions not ascending") != std::string::npos);
  CHECK(error_of(path, Limits{1024, 16, 2}).find("sequence length 8, expected 16") != std::string::npos);
}

TEST_CASE("write_shard leaves no file behind when it fails") {
  TempDir tmp;
  const SequenceSet seqs = make_sequences(10, 32);
  const std::string path = tmp.file("part_x.hdf5");
  CHECK_THROWS_AS(write_shard(path, seqs, Format::fixed, Limits{1024, 16, 4}), DataError);
  CHECK_FALSE(std::filesystem::exists(path));
  CHECK_FALSE(std::filesystem::exists(path + ".tmp"));
  CHECK_THROWS_AS(write_shard(path, seqs, Format::packed, Limits{1024, 32, 4}), DataError);  // not packed
}

TEST_CASE("list_shards takes part* files in name order") {
  TempDir tmp;
  for (const char* n : {"part_2.hdf5", "part_1.hdf5", "part_1.hdf5.chk", "other.hdf5", "part_3.tmp"})
    std::ofstream(tmp.file(n)) << "x";
  const auto files = list_shards(tmp.path().string());
  REQUIRE(files.size() == 2);
  CHECK(files[0] == tmp.file("part_1.hdf5"));
  CHECK(files[1] == tmp.file("part_2.hdf5"));
  CHECK_THROWS_AS(list_shards(tmp.file("nope")), DataError);
}
