// PMI2 values are NUL-terminated text of at most PMI2_MAX_VALLEN bytes: binary values are hex-encoded
// and split into chunks; chunk 0 carries "<chunks>:" in front.
#include <slurm/pmi2.h>

#include <string>
#include <vector>

#include "trainer/comm/pmi_kv.h"

namespace bert::dist {
namespace {

constexpr size_t kChunkHex = 1000;  // < PMI2_MAX_VALLEN, room for the "<n>:" prefix

std::string to_hex(const std::string& bytes) {
  static const char* d = "0123456789abcdef";
  std::string s;
  s.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    s.push_back(d[c >> 4]);
    s.push_back(d[c & 15]);
  }
  return s;
}

std::string from_hex(const std::string& hex, const std::string& key) {
  auto nibble = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    throw DistError("PMI2 value of '" + key + "' is not hex");
  };
  if (hex.size() % 2) throw DistError("PMI2 value of '" + key + "' has odd length");
  std::string out(hex.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<char>(nibble(hex[2 * i]) * 16 + nibble(hex[2 * i + 1]));
  return out;
}

class Pmi2KVStore final : public KVStore {
 public:
  explicit Pmi2KVStore(const ProcessInfo& p) : rank_(p.rank) {
    if (!PMI2_Initialized()) {
      int spawned = 0, size = 0, rank = 0, appnum = 0;
      int rc = PMI2_Init(&spawned, &size, &rank, &appnum);
      if (rc != PMI2_SUCCESS) throw DistError("PMI2_Init failed (rc " + std::to_string(rc) + "): is this step `srun --mpi=pmi2`?");
      owns_ = true;
      if (size != p.size || rank != p.rank)
        throw DistError("PMI2 says rank " + std::to_string(rank) + " of " + std::to_string(size) +
                        " but SLURM_* says rank " + std::to_string(p.rank) + " of " + std::to_string(p.size));
    }
    char id[PMI2_MAX_VALLEN] = {0};
    int rc = PMI2_Job_GetId(id, sizeof id);
    if (rc != PMI2_SUCCESS)
      throw DistError("PMI2_Job_GetId failed (rc " + std::to_string(rc) +
                      "): no PMI2 server for this process; launch it with `srun --mpi=pmi2`");
    jobid_ = id;
  }
  ~Pmi2KVStore() override {
    if (owns_) PMI2_Finalize();
  }

  void put(const std::string& key, const std::string& value) override {
    std::string hex = to_hex(value);
    size_t chunks = hex.empty() ? 1 : (hex.size() + kChunkHex - 1) / kChunkHex;
    for (size_t i = 0; i < chunks; ++i) {
      std::string part = hex.substr(i * kChunkHex, kChunkHex);
      if (i == 0) part = std::to_string(chunks) + ":" + part;
      int rc = PMI2_KVS_Put(pmi_key(key, rank_, i).c_str(), part.c_str());
      if (rc != PMI2_SUCCESS) throw DistError("PMI2_KVS_Put('" + key + "') failed (rc " + std::to_string(rc) + ")");
    }
  }

  void fence() override {
    int rc = PMI2_KVS_Fence();
    if (rc != PMI2_SUCCESS) throw DistError("PMI2_KVS_Fence failed (rc " + std::to_string(rc) + "): did a rank exit?");
  }

  std::string get(const std::string& key, int from_rank) override {
    std::string first = get_raw(key, from_rank, 0);
    size_t colon = first.find(':');
    size_t chunks = 0;
    try {
      chunks = std::stoul(first.substr(0, colon));
    } catch (const std::exception&) {
      colon = std::string::npos;
    }
    if (colon == std::string::npos || chunks == 0) throw DistError("PMI2 value of '" + key + "' is malformed");
    std::string hex = first.substr(colon + 1);
    for (size_t i = 1; i < chunks; ++i) hex += get_raw(key, from_rank, i);
    return from_hex(hex, key);
  }

 private:
  static std::string pmi_key(const std::string& key, int rank, size_t chunk) {
    std::string k = std::to_string(rank);
    k.append("/").append(key);
    if (chunk) k.append("#").append(std::to_string(chunk));
    if (k.size() >= PMI2_MAX_KEYLEN)
      throw DistError("PMI2 key '" + k + "' is longer than " + std::to_string(PMI2_MAX_KEYLEN - 1) + " characters");
    return k;
  }

  std::string get_raw(const std::string& key, int from_rank, size_t chunk) {
    std::vector<char> buf(PMI2_MAX_VALLEN + 1, '\0');
    int len = 0;
    int rc = PMI2_KVS_Get(jobid_.c_str(), from_rank, pmi_key(key, from_rank, chunk).c_str(), buf.data(),
                          PMI2_MAX_VALLEN, &len);
    if (rc != PMI2_SUCCESS)
      throw DistError("rank " + std::to_string(rank_) + ": PMI2_KVS_Get of '" + key + "' from rank " +
                      std::to_string(from_rank) + " failed (rc " + std::to_string(rc) +
                      "): that rank did not put it before the fence");
    return std::string(buf.data());  // NUL-terminated text (len is not counted the same by every PMI2)
  }

  int rank_;
  bool owns_ = false;
  std::string jobid_;
};

}  // namespace

std::unique_ptr<KVStore> make_pmi2_kv_store(const ProcessInfo& p) { return std::make_unique<Pmi2KVStore>(p); }

}  // namespace bert::dist
