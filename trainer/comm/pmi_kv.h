// KV stores over the launcher's process-management interface. Keys are namespaced by the putting
// rank, so every rank may put the same key. Call only after check_pmi_available().
#pragma once
#include <memory>

#include "trainer/comm/comm.h"

namespace bert::dist {

std::unique_ptr<KVStore> make_pmi2_kv_store(const ProcessInfo& p);  // Slurm's libpmi2 (srun --mpi=pmi2)
std::unique_ptr<KVStore> make_pmix_kv_store(const ProcessInfo& p);  // OpenPMIx (srun --mpi=pmix, mpirun)

}  // namespace bert::dist
