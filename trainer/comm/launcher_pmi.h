// Which PMI a process should use and whether its launcher really provided it. The diagnosis is the
// point: "pmix doesn't work" must come out as a message naming the srun flag to change.
#pragma once
#include <string>

#include "trainer/comm/comm.h"

namespace bert::dist {

// BERT_DIST_PMI if set (validated), else the launcher's own: srun -> SLURM_MPI_TYPE (pmix_v4 -> pmix),
// mpirun -> pmix when its PMIx server variables are present, local -> file, single -> none.
std::string requested_pmi(const std::string& launcher);

// What srun says it started the step with ("pmi2", "pmix", "none", or "" when not under srun).
std::string srun_mpi_type();

// Throws DistError explaining how to fix the launch when p.pmi cannot work in this environment.
void check_pmi_available(const ProcessInfo& p, const std::string& rendezvous_dir);

}  // namespace bert::dist
