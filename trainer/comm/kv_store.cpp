// make_kv_store(): the launcher's PMI after checking it can work here (clear error otherwise).
#include <chrono>
#include <map>

#include "trainer/comm/comm.h"
#include "trainer/comm/env.h"
#include "trainer/comm/file_kv.h"
#include "trainer/comm/launcher_pmi.h"
#include "trainer/comm/pmi_kv.h"

namespace bert::dist {
namespace {

// A single process needs no exchange: its own puts are all there is.
class LocalKVStore final : public KVStore {
 public:
  void put(const std::string& key, const std::string& value) override { values_[key] = value; }
  void fence() override {}
  std::string get(const std::string& key, int from_rank) override {
    auto it = values_.find(key);
    if (from_rank != 0 || it == values_.end())
      throw DistError("KV get of '" + key + "' from rank " + std::to_string(from_rank) + ": not put (single process)");
    return it->second;
  }

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace

std::unique_ptr<KVStore> make_kv_store(const ProcessInfo& p, const std::string& rendezvous_dir) {
  check_pmi_available(p, rendezvous_dir);
  if (p.size == 1) return std::make_unique<LocalKVStore>();
  if (p.pmi == Pmi::Pmi2) return make_pmi2_kv_store(p);
  if (p.pmi == Pmi::Pmix) return make_pmix_kv_store(p);
  if (p.pmi == Pmi::File) {
    auto timeout = std::chrono::milliseconds(static_cast<long>(env_seconds_or("BERT_DIST_TIMEOUT_S", 300) * 1000));
    return std::make_unique<FileKVStore>(rendezvous_dir, p.rank, p.size, timeout);
  }
  return std::make_unique<LocalKVStore>();
}

}  // namespace bert::dist
