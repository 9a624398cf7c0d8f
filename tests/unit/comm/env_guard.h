// Sets launcher variables for one test and restores the environment afterwards.
#pragma once
#include <cstdlib>
#include <map>
#include <optional>
#include <string>

namespace bert::dist::test {

class EnvGuard {
 public:
  // Every variable any launcher sets is cleared first, so tests see only what they set.
  EnvGuard() {
    for (const char* v : {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "NODE_RANK", "SLURM_PROCID",
                          "SLURM_NTASKS", "SLURM_STEP_NUM_TASKS", "SLURM_LOCALID", "SLURM_NODEID", "SLURM_NNODES",
                          "SLURM_STEP_NUM_NODES", "SLURM_STEP_ID", "SLURM_STEPID", "SLURM_STEP_TASKS_PER_NODE",
                          "SLURM_TASKS_PER_NODE", "SLURM_MPI_TYPE", "PMI_FD", "PMI_PORT", "PMIX_RANK",
                          "PMIX_NAMESPACE", "PMIX_SERVER_URI4", "PMIX_SERVER_URI41", "PMIX_SERVER_URI3",
                          "PMIX_SERVER_URI2", "PMIX_SERVER_URI21", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
                          "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_MCA_orte_num_nodes",
                          "BERT_DIST_PMI", "BERT_DIST_TIMEOUT_S", "BERT_DIST_COLL_TIMEOUT_S", "BERT_GLOO_IFACE", "GLOO_SOCKET_IFNAME",
                          "BERT_GLOO_HOST", "BERT_DIST_CPU_TRANSPORT"})
      set(v, std::nullopt);
  }
  ~EnvGuard() {
    for (auto& [name, old] : saved_) {
      if (old) ::setenv(name.c_str(), old->c_str(), 1);
      else ::unsetenv(name.c_str());
    }
  }
  EnvGuard& set(const std::string& name, std::optional<std::string> value) {
    if (!saved_.count(name)) {
      const char* old = std::getenv(name.c_str());
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
    }
    if (value) ::setenv(name.c_str(), value->c_str(), 1);
    else ::unsetenv(name.c_str());
    return *this;
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

}  // namespace bert::dist::test
