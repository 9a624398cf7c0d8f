#include "trainer/comm/launcher_pmi.h"

#include "trainer/comm/env.h"

namespace bert::dist {
namespace {

std::string normalize(const std::string& mpi_type) {
  if (mpi_type.rfind("pmix", 0) == 0) return "pmix";  // pmix, pmix_v3, pmix_v4
  return mpi_type;
}

bool has_pmix_server() {
  return env_string("PMIX_RANK") && env_string("PMIX_NAMESPACE") &&
         (env_string("PMIX_SERVER_URI4") || env_string("PMIX_SERVER_URI41") || env_string("PMIX_SERVER_URI3") ||
          env_string("PMIX_SERVER_URI21") || env_string("PMIX_SERVER_URI2"));
}

bool has_pmi2_fd() { return env_string("PMI_FD") || env_string("PMI_PORT"); }

std::string srun_started_with() {
  std::string t = srun_mpi_type();
  return t.empty() ? "srun set no SLURM_MPI_TYPE" : "srun started this step with --mpi=" + t + " (SLURM_MPI_TYPE=" + t + ")";
}

[[noreturn]] void fail(const std::string& msg) { throw DistError(msg); }

}  // namespace

std::string srun_mpi_type() {
  auto t = env_string("SLURM_MPI_TYPE");
  if (t) return normalize(*t);
  if (!env_string("SLURM_PROCID")) return "";
  if (has_pmi2_fd()) return "pmi2";
  if (has_pmix_server()) return "pmix";
  return "none";
}

Pmi requested_pmi(Starter launcher) {
  if (auto r = env_string("BERT_DIST_PMI")) {
    if (const auto v = parse_enum(normalize(*r), kPmiNames)) return *v;
    fail("BERT_DIST_PMI='" + *r + "' is not one of pmi2, pmix, file, none");
  }
  switch (launcher) {
    case Starter::Srun: {
      const std::string t = srun_mpi_type();
      if (const auto v = parse_enum(t, kPmiNames); v && *v != Pmi::File) return *v;
      fail(srun_started_with() + ", a PMI the trainer does not speak: launch with `srun --mpi=pmi2` or "
           "`srun --mpi=pmix`");
    }
    case Starter::Mpirun: return has_pmix_server() ? Pmi::Pmix : Pmi::None;
    case Starter::Local: return Pmi::File;
    case Starter::Single: break;
  }
  return Pmi::None;
}

void check_pmi_available(const ProcessInfo& p, const std::string& rendezvous_dir) {
  const std::string ranks = std::to_string(p.size) + " ranks";
  const std::string how = p.launcher == Starter::Srun
      ? "launch with `srun --mpi=pmi2` or `srun --mpi=pmix` (or export SLURM_MPI_TYPE=pmi2|pmix before srun)"
      : "use srun --mpi=pmi2|pmix, mpirun (PMIx), or a file rendezvous (BERT_DIST_PMI=file and a shared rendezvous_dir)";
  if (p.pmi == Pmi::None) {
    if (p.size == 1) return;
    if (p.launcher == Starter::Srun)
      fail(srun_started_with() + ", so there is no PMI to exchange addresses between " + ranks + "; " + how);
    fail(std::string(p.launcher_name()) + " launch of " + ranks + " has no PMI; " + how);
  }
  if (p.pmi == Pmi::File) {
    if (rendezvous_dir.empty() && p.size > 1)
      fail("the file rendezvous (BERT_DIST_PMI=file / local launcher) needs a rendezvous directory "
           "(run config key rendezvous_dir) shared by all " + ranks);
    return;
  }
  if (p.pmi == Pmi::Pmix) {
    if (has_pmix_server()) return;
    if (p.launcher == Starter::Srun) {
      if (parse_enum(srun_mpi_type(), kPmiNames) == Pmi::Pmix)
        fail("srun started this step with --mpi=pmix (SLURM_MPI_TYPE=pmix) but the PMIx server variables "
             "(PMIX_RANK, PMIX_NAMESPACE, PMIX_SERVER_URI*) did not reach this process: the container runtime "
             "dropped them (enroot needs its 50-slurm-pmi hook) or Slurm's mpi/pmix plugin is not loaded "
             "(check `srun --mpi=list`); use `srun --mpi=pmi2` (SLURM_MPI_TYPE=pmi2) instead");
      fail("PMIx was requested (BERT_DIST_PMI=pmix / system YAML) but " + srun_started_with() +
           ": launch with `srun --mpi=pmix` (or export SLURM_MPI_TYPE=pmix), or request pmi2 to match the step");
    }
    fail(std::string("PMIx was requested but this ") + p.launcher_name() + " process has no PMIx server variables "
         "(PMIX_RANK, PMIX_NAMESPACE, PMIX_SERVER_URI*): start it with `srun --mpi=pmix` or mpirun");
  }
  if (p.pmi == Pmi::Pmi2) {
    if (p.launcher == Starter::Srun) {
      const bool started_pmi2 = parse_enum(srun_mpi_type(), kPmiNames) == Pmi::Pmi2;
      if (started_pmi2 && has_pmi2_fd()) return;
      if (started_pmi2)
        fail("srun started this step with --mpi=pmi2 (SLURM_MPI_TYPE=pmi2) but PMI_FD did not reach this "
             "process (the container runtime dropped it; enroot needs its 50-slurm-pmi hook)");
      fail("PMI2 was requested (BERT_DIST_PMI=pmi2 / system YAML) but " + srun_started_with() +
           ": launch with `srun --mpi=pmi2` (or export SLURM_MPI_TYPE=pmi2), or request pmix to match the step");
    }
    if (p.launcher == Starter::Mpirun)
      fail("PMI2 (Slurm's libpmi2) was requested but this process was started by mpirun, which provides PMIx: "
           "set BERT_DIST_PMI=pmix (or launcher mpi: pmix)");
    fail(std::string("PMI2 was requested but this ") + p.launcher_name() + " process was not started by `srun --mpi=pmi2`");
  }
}

}  // namespace bert::dist
