// PMIx: values are byte objects, published with PMIx_Put(GLOBAL) + Commit, made visible by a fence
// that collects data, read with PMIx_Get from the putting rank.
#include <pmix.h>

#include <string>

#include "trainer/comm/pmi_kv.h"

namespace bert::dist {
namespace {

std::string status(pmix_status_t rc) { return std::string(PMIx_Error_string(rc)); }

class PmixKVStore final : public KVStore {
 public:
  explicit PmixKVStore(const ProcessInfo& p) {
    pmix_status_t rc = PMIx_Init(&me_, nullptr, 0);
    if (rc != PMIX_SUCCESS)
      throw DistError("PMIx_Init failed: " + status(rc) +
                      " (the PMIx server is unreachable: is this step `srun --mpi=pmix` with Slurm's mpi/pmix "
                      "plugin loaded, see `srun --mpi=list`? otherwise use `srun --mpi=pmi2`)");
    if (static_cast<int>(me_.rank) != p.rank) {
      std::string msg = "PMIx says rank " + std::to_string(me_.rank) + " but the launcher says rank " + std::to_string(p.rank);
      PMIx_Finalize(nullptr, 0);
      throw DistError(msg);
    }
  }
  ~PmixKVStore() override { PMIx_Finalize(nullptr, 0); }

  void put(const std::string& key, const std::string& value) override {
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = const_cast<char*>(value.data());
    v.data.bo.size = value.size();
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, pmix_key(key).c_str(), &v);  // copies the bytes
    if (rc != PMIX_SUCCESS) throw DistError("PMIx_Put('" + key + "') failed: " + status(rc));
  }

  void fence() override {
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) throw DistError("PMIx_Commit failed: " + status(rc));
    pmix_proc_t all;
    PMIX_PROC_CONSTRUCT(&all);
    PMIX_LOAD_PROCID(&all, me_.nspace, PMIX_RANK_WILDCARD);
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    bool collect = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(&all, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) throw DistError("PMIx_Fence failed: " + status(rc) + " (did a rank exit?)");
  }

  std::string get(const std::string& key, int from_rank) override {
    pmix_proc_t from;
    PMIX_PROC_CONSTRUCT(&from);
    PMIX_LOAD_PROCID(&from, me_.nspace, static_cast<pmix_rank_t>(from_rank));
    pmix_value_t* v = nullptr;
    pmix_status_t rc = PMIx_Get(&from, pmix_key(key).c_str(), nullptr, 0, &v);
    if (rc != PMIX_SUCCESS)
      throw DistError("rank " + std::to_string(me_.rank) + ": PMIx_Get of '" + key + "' from rank " +
                      std::to_string(from_rank) + " failed: " + status(rc) + " (that rank did not put it before the fence)");
    std::string out;
    bool ok = v != nullptr && v->type == PMIX_BYTE_OBJECT;
    if (ok) out.assign(v->data.bo.bytes, v->data.bo.size);
    if (v != nullptr) PMIX_VALUE_RELEASE(v);
    if (!ok) throw DistError("PMIx value of '" + key + "' from rank " + std::to_string(from_rank) + " is not a byte object");
    return out;
  }

 private:
  static std::string pmix_key(const std::string& key) {
    std::string k = "bert." + key;
    if (k.size() > PMIX_MAX_KEYLEN) throw DistError("PMIx key '" + key + "' is too long");
    return k;
  }
  pmix_proc_t me_{};
};

}  // namespace

std::unique_ptr<KVStore> make_pmix_kv_store(const ProcessInfo& p) { return std::make_unique<PmixKVStore>(p); }

}  // namespace bert::dist
