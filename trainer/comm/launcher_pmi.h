// Which PMI a process should use and whether its launcher really provided it. The diagnosis is the
// point: "pmix doesn't work" must come out as a message naming the srun flag to change.
#pragma once
#include <string>

#include "trainer/comm/comm.h"

namespace bert::dist {

// BERT_DIST_PMI if set, else the launcher's own: srun -> SLURM_MPI_TYPE (pmix_v4 -> pmix), mpirun -> pmix
// when its PMIx server variables are present, local -> file, single -> none. DistError on a word that is
// not a PMI the trainer speaks.
Pmi requested_pmi(Starter launcher);

// What srun says it started the step with ("pmi2", "pmix", "none", another plugin's name, or "" when not
// under srun): the environment's word, for messages and for requested_pmi's parse.
std::string srun_mpi_type();

// Throws DistError explaining how to fix the launch when p.pmi cannot work in this environment.
void check_pmi_available(const ProcessInfo& p, const std::string& rendezvous_dir);

}  // namespace bert::dist
