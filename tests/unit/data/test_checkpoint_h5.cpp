#include <doctest/doctest.h>
#include <hdf5.h>

#include <filesystem>

#include "test_util.h"
#include "formats/checkpoint_h5.h"
#include "formats/h5_util.h"

using namespace bert::data;
using bert::data::test::TempDir;

TEST_CASE("weights HDF5: TF names as paths, shapes kept, attributes set") {
  TempDir tmp;
  TensorMap in;
  in["bert/encoder/layer_0/attention/self/query/kernel"] = {{3, 2}, {1, 2, 3, 4, 5, 6}};
  in["cls/predictions/output_bias"] = {{4}, {0.5f, -1, 2, 3}};
  in["scalar"] = {{}, {7}};
  save_checkpoint_h5(tmp.file("w.h5"), in, "model.ckpt-1");
  const TensorMap out = load_checkpoint_h5(tmp.file("w.h5"));
  REQUIRE(out.size() == 3);
  for (const auto& [name, t] : in) {
    CHECK(out.at(name).shape == t.shape);
    CHECK(out.at(name).values == t.values);
  }
  h5::Handle f = h5::open_file(tmp.file("w.h5"));
  CHECK(h5::read_string_attr(f, "format") == kWeightsFormat);
  CHECK(h5::read_string_attr(f, "kernel_layout") == "in_out_row_major");
  CHECK(h5::read_string_attr(f, "source") == "model.ckpt-1");
  CHECK(h5::has_dataset(f, "/bert/encoder/layer_0/attention/self/query/kernel"));
}

TEST_CASE("weights HDF5: errors name the file and the dataset") {
  TempDir tmp;
  TensorMap bad;
  bad["x"] = {{2, 2}, {1, 2, 3}};
  CHECK_THROWS_WITH_AS(save_checkpoint_h5(tmp.file("b.h5"), bad, ""), doctest::Contains("dataset x"), DataError);
  CHECK_FALSE(std::filesystem::exists(tmp.file("b.h5")));
  // an integer dataset is not a weight
  hid_t f = H5Fcreate(tmp.file("i.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t d = 2;
  hid_t sp = H5Screate_simple(1, &d, nullptr);
  hid_t ds = H5Dcreate2(f, "ids", H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dclose(ds);
  H5Sclose(sp);
  H5Fclose(f);
  CHECK_THROWS_WITH_AS(load_checkpoint_h5(tmp.file("i.h5")), doctest::Contains("dataset ids: dtype int32, expected float32"),
                       DataError);
  CHECK_THROWS_AS(load_checkpoint_h5(tmp.file("none.h5")), DataError);
}
