#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_util.h"
#include "dataset/checkpoint_convert.h"
#include "dataset/crc32c.h"
#include "dataset/tf_bundle.h"

using namespace bert::data;
using bert::data::test::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kTf = std::string(BERT_DATA_FIXTURES) + "/tf";

nlohmann::json manifest() {
  std::ifstream in(kTf + "/manifest.json");
  return nlohmann::json::parse(in);
}

std::vector<float> fixture_values(const std::string& name) {
  return load_checkpoint_h5(kTf + "/" + name + ".values.h5").at("values").values;
}

// Every tensor of a fixture checkpoint against the values TensorFlow wrote.
void compare_all(const std::string& name) {
  const auto m = manifest().at(name);
  TfBundle bundle(kTf + "/" + m.at("prefix").get<std::string>());
  const auto values = fixture_values(name);
  const auto& tensors = m.at("tensors");
  REQUIRE(bundle.entries().size() == tensors.size());
  for (const TfEntry& e : bundle.entries()) {
    CAPTURE(e.name);
    REQUIRE(tensors.contains(e.name));
    const auto& t = tensors.at(e.name);
    CHECK(e.shape == t.at("shape").get<std::vector<int64_t>>());
    if (t.at("dtype") == "float32") {
      CHECK(std::string(tf_dtype_name(e.dtype)) == "DT_FLOAT");
      const auto v = bundle.read_float(e);
      const size_t off = t.at("offset").get<size_t>();
      REQUIRE(off + v.size() <= values.size());
      CHECK(std::equal(v.begin(), v.end(), values.begin() + static_cast<std::ptrdiff_t>(off)));
    } else {
      CHECK(std::string(tf_dtype_name(e.dtype)) == "DT_INT64");
      int64_t step;
      std::memcpy(&step, bundle.bytes(e), 8);
      CHECK(step == t.at("value").get<int64_t>());
    }
  }
}

std::string copy_fixture(const TempDir& tmp, const std::string& name) {
  const std::string prefix = manifest().at(name).at("prefix").get<std::string>();
  const std::string base = fs::path(prefix).filename().string();
  for (const char* ext : {".index", ".data-00000-of-00001"})
    fs::copy_file(kTf + "/" + prefix + ext, tmp.file(base + ext));
  return tmp.file(base);
}

void flip_byte(const std::string& path, std::streamoff at) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(at);
  char c;
  f.get(c);
  f.seekp(at);
  f.put(static_cast<char>(c ^ 0x20));
}

std::string convert_error(const std::string& prefix, const TempDir& tmp) {
  try {
    convert_tf_checkpoint(prefix, tmp.file("out.h5"));
  } catch (const DataError& e) {
    CHECK_FALSE(fs::exists(tmp.file("out.h5")));  // no partial output
    return e.what();
  }
  return "";
}

void put_varint(std::string& s, uint64_t v) {
  do {
    s.push_back(static_cast<char>((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
    v >>= 7;
  } while (v);
}

// A minimal one-data-block table with the given (key, value) entries.
std::string make_table(const std::vector<std::pair<std::string, std::string>>& kv) {
  auto block = [](const std::vector<std::pair<std::string, std::string>>& entries) {
    std::string b;
    for (const auto& [k, v] : entries) {
      put_varint(b, 0);
      put_varint(b, k.size());
      put_varint(b, v.size());
      b += k + v;
    }
    const uint32_t restarts[2] = {0, 1};
    b.append(reinterpret_cast<const char*>(restarts), 8);
    return b;
  };
  std::string file;
  auto emit = [&](const std::string& contents) {
    const uint64_t off = file.size();
    file += contents;
    file.push_back('\0');
    const uint32_t crc = crc32c_mask(crc32c(file.data() + off, contents.size() + 1));
    file.append(reinterpret_cast<const char*>(&crc), 4);
    std::string handle;
    put_varint(handle, off);
    put_varint(handle, contents.size());
    return handle;
  };
  const std::string data = emit(block(kv));
  const std::string meta = emit(std::string("\0\0\0\0\1\0\0\0", 8));
  const std::string index = emit(block({{"zzz", data}}));
  std::string footer = meta + index;
  footer.resize(40, '\0');
  const uint64_t magic = 0xdb4775248b80fb57ULL;
  footer.append(reinterpret_cast<const char*>(&magic), 8);
  return file + footer;
}

}  // namespace

TEST_CASE("crc32c and its mask") {
  CHECK(crc32c("123456789", 9) == 0xE3069283u);
  CHECK(crc32c("", 0) == 0u);
  const char* text = "The quick brown fox jumps over the lazy dog, many times over and over";
  CHECK(crc32c(text + 10, std::strlen(text) - 10, crc32c(text, 10)) == crc32c(text, std::strlen(text)));
  for (uint32_t c : {0u, 1u, 0xE3069283u, 0xffffffffu}) CHECK(crc32c_unmask(crc32c_mask(c)) == c);
}

TEST_CASE("TF1 BERT-shaped checkpoint: every tensor equals what TensorFlow wrote") { compare_all("tiny_bert"); }

TEST_CASE("TF1 checkpoint with a snappy-compressed index block: every tensor") {
  CHECK(manifest().at("many_names").at("data_block_compression")[0] == 1);
  compare_all("many_names");
}

TEST_CASE("convert-checkpoint keeps the weights, skips LAMB slots and global_step") {
  TempDir tmp;
  const auto m = manifest().at("tiny_bert");
  const ConvertReport r = convert_tf_checkpoint(kTf + "/" + m.at("prefix").get<std::string>(), tmp.file("w.h5"));
  CHECK(r.kept.size() == 46);     // 5 + 2*16 + 2 + 5 + 2 for two layers
  CHECK(r.skipped.size() == 93);  // 46 * (LAMB, LAMB_1) + global_step
  const TensorMap w = load_checkpoint_h5(tmp.file("w.h5"));
  CHECK(w.size() == 46);
  const auto values = fixture_values("tiny_bert");
  int64_t params = 0;
  for (const auto& [name, t] : w) {
    CAPTURE(name);
    CHECK_FALSE(is_optimizer_or_step(name));
    const auto& info = m.at("tensors").at(name);
    CHECK(t.shape == info.at("shape").get<std::vector<int64_t>>());
    const size_t off = info.at("offset").get<size_t>();
    CHECK(std::equal(t.values.begin(), t.values.end(), values.begin() + static_cast<std::ptrdiff_t>(off)));
    params += t.numel();
  }
  CHECK(params == r.parameters);
  CHECK(w.at("bert/encoder/layer_1/intermediate/dense/kernel").shape == std::vector<int64_t>{8, 16});
  CHECK(w.at("cls/seq_relationship/output_weights").shape == std::vector<int64_t>{2, 8});
}

TEST_CASE("corrupt checkpoints are clear errors") {
  SUBCASE("bad magic") {
    TempDir tmp;
    const std::string p = copy_fixture(tmp, "tiny_bert");
    flip_byte(p + ".index", static_cast<std::streamoff>(fs::file_size(p + ".index") - 1));
    CHECK(convert_error(p, tmp).find("bad table magic") != std::string::npos);
  }
  SUBCASE("block crc mismatch (raw and snappy blocks)") {
    for (const char* name : {"tiny_bert", "many_names"}) {
      TempDir tmp;
      const std::string p = copy_fixture(tmp, name);
      flip_byte(p + ".index", 20);
      const std::string e = convert_error(p, tmp);
      CHECK(e.find("crc32c mismatch") != std::string::npos);
      CHECK(e.find(".index") != std::string::npos);
    }
  }
  SUBCASE("truncated index and data") {
    TempDir tmp;
    const std::string p = copy_fixture(tmp, "tiny_bert");
    fs::resize_file(p + ".data-00000-of-00001", 1000);
    CHECK(convert_error(p, tmp).find("truncated data") != std::string::npos);
    fs::resize_file(p + ".index", 30);
    CHECK(convert_error(p, tmp).find("shorter than the 48-byte table footer") != std::string::npos);
    fs::resize_file(p + ".index", 0);
    CHECK(convert_error(p, tmp).find("truncated") != std::string::npos);
  }
  SUBCASE("tensor bytes changed") {
    TempDir tmp;
    const std::string p = copy_fixture(tmp, "tiny_bert");
    flip_byte(p + ".data-00000-of-00001", 100);
    CHECK(convert_error(p, tmp).find("crc32c mismatch (index says") != std::string::npos);
  }
  SUBCASE("missing files") {
    TempDir tmp;
    CHECK(convert_error(tmp.file("model.ckpt-1"), tmp).find("cannot open") != std::string::npos);
    const std::string p = copy_fixture(tmp, "tiny_bert");
    fs::remove(p + ".data-00000-of-00001");
    CHECK(convert_error(p, tmp).find("cannot open data shard") != std::string::npos);
  }
  SUBCASE("unknown dtype and malformed entries in a well-formed table") {
    TempDir tmp;
    const std::string header("\x08\x01\x1a\x02\x08\x01", 6);
    auto write = [&](const std::string& entry) {
      std::ofstream(tmp.file("t.index"), std::ios::binary) << make_table({{"", header}, {"w", entry}});
      std::ofstream(tmp.file("t.data-00000-of-00001"), std::ios::binary) << std::string(8, '\0');
      return convert_error(tmp.file("t"), tmp);
    };
    // dtype 99, shape [2], size 8
    CHECK(write(std::string("\x08\x63\x12\x04\x12\x02\x08\x02\x28\x08", 10)).find("unknown dtype 99") !=
          std::string::npos);
    // DT_FLOAT [2] but size 4
    CHECK(write(std::string("\x08\x01\x12\x04\x12\x02\x08\x02\x28\x04", 10)).find("does not match shape") !=
          std::string::npos);
    // length-delimited shape running past the entry
    CHECK(write(std::string("\x08\x01\x12\x09\x12\x02", 6)).find("runs past") != std::string::npos);
    // the well-formed case converts: DT_FLOAT [2], size 8
    CHECK(write(std::string("\x08\x01\x12\x04\x12\x02\x08\x02\x28\x08", 10)).empty());
    CHECK(load_checkpoint_h5(tmp.file("out.h5")).at("w").values == std::vector<float>{0.f, 0.f});
    // an int64 counter next to the weight is bookkeeping: skipped, not an error
    std::ofstream(tmp.file("t.index"), std::ios::binary)
        << make_table({{"", header},
                       {"counter", std::string("\x08\x09\x12\x00\x28\x08", 6)},
                       {"w", std::string("\x08\x01\x12\x04\x12\x02\x08\x02\x20\x08\x28\x08", 12)}});
    std::ofstream(tmp.file("t.data-00000-of-00001"), std::ios::binary) << std::string(16, '\0');
    const ConvertReport r = convert_tf_checkpoint(tmp.file("t"), tmp.file("out2.h5"));
    CHECK(r.kept == std::vector<std::string>{"w"});
    CHECK(r.skipped == std::vector<std::string>{"counter"});
  }
}
