// Process bootstrap and CPU collectives for the trainer.
// detect_process(): rank/size/local rank/node from the launcher's environment (harness local
// launcher: RANK/WORLD_SIZE/LOCAL_RANK/LOCAL_WORLD_SIZE/NODE_RANK; srun: SLURM_*; mpirun: OMPI_COMM_WORLD_*).
// KVStore: put/get/fence over Slurm's PMI2, OpenPMIx, or a file rendezvous directory (local launches);
// it passes the NCCL unique id (GPU) and the Gloo rendezvous (CPU).
//
// Environment knobs (all optional):
//   BERT_DIST_PMI=pmi2|pmix|file   the PMI this process must use (the harness sets it from the system
//                                  YAML); without it the launcher's own PMI is used (srun: SLURM_MPI_TYPE,
//                                  mpirun: PMIx, local launcher: file). A request the launcher did not
//                                  provide is a DistError naming `srun --mpi=...` / SLURM_MPI_TYPE.
//   BERT_DIST_TIMEOUT_S=<s>        KV get / fence timeout (default 300)
//   BERT_DIST_COLL_TIMEOUT_S=<s>   how long a CPU collective waits for a peer (default 1800)
//   BERT_DIST_CPU_TRANSPORT=auto|shm|tcp  the CPU collective's transport: auto (default) takes shared
//                                  memory when every rank is on one node and they can share a segment
//                                  (else a note and TCP), Gloo TCP across nodes; shm insists on shared
//                                  memory, and across nodes uses it within each node with Gloo TCP
//                                  between the nodes' local ranks 0 (not yet timed on real nodes); tcp
//                                  is Gloo between every rank
//   BERT_GLOO_IFACE / GLOO_SOCKET_IFNAME   network interface for Gloo TCP; BERT_GLOO_HOST: address
//                                  (default: loopback when all ranks share one node, else the hostname)
#pragma once
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/enum_names.h"
#include "common/user_error.h"

namespace bert::dist {

using DistError = bert::UserError;  // a user-caused bootstrap or collective failure

// What started this process (single: nothing, one process) and the PMI its ranks exchange addresses over.
enum class Starter { Single, Local, Srun, Mpirun };
inline constexpr EnumNames<Starter, 4> kStarterNames{
    {{Starter::Single, "single"}, {Starter::Local, "local"}, {Starter::Srun, "srun"}, {Starter::Mpirun, "mpirun"}}};
enum class Pmi { None, File, Pmi2, Pmix };
inline constexpr EnumNames<Pmi, 4> kPmiNames{{{Pmi::None, "none"}, {Pmi::File, "file"}, {Pmi::Pmi2, "pmi2"}, {Pmi::Pmix, "pmix"}}};

struct ProcessInfo {
  int rank = 0, size = 1, local_rank = 0, local_size = 1, node = 0, num_nodes = 1;
  Starter launcher = Starter::Single;
  Pmi pmi = Pmi::None;
  const char* launcher_name() const { return enum_name(launcher, kStarterNames); }
  const char* pmi_name() const { return enum_name(pmi, kPmiNames); }
};

// Throws DistError naming the variable when the launcher's variables are malformed or inconsistent.
ProcessInfo detect_process();

class KVStore {
 public:
  virtual ~KVStore() = default;
  virtual void put(const std::string& key, const std::string& value) = 0;
  virtual void fence() = 0;                                   // makes puts visible to every rank
  virtual std::string get(const std::string& key, int from_rank) = 0;  // blocking, with timeout
};

// pmi2 / pmix / file (rendezvous_dir required) / none (size 1 only).
// A requested PMI that the step was not started with is a DistError naming the srun flag to change.
std::unique_ptr<KVStore> make_kv_store(const ProcessInfo& p, const std::string& rendezvous_dir);

class Collective {
 public:
  virtual ~Collective() = default;
  virtual void allreduce_sum(float* data, size_t n) = 0;
  virtual void allreduce_sum(double* data, size_t n) = 0;
  virtual void broadcast(void* data, size_t bytes, int root) = 0;
  virtual void barrier() = 0;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual const char* transport() const = 0;  // "none" (1 rank), "shm", "shm+tcp" or "tcp"

  // Sharded updates. The job's ranks form `copies` groups of ranks that each hold one copy of what is
  // updated, split into `parts` parts, one per rank of the group: part `part` is this rank's, and
  // `copy` is its group's index. The job (the default, and shared memory on one node): one group, its
  // parts the ranks. Several nodes through shared memory and TCP: a group per node, its parts the
  // node's local ranks. bounds: parts+1 ascending offsets from 0, the same on every rank of a group.
  struct UpdateGroup {
    int parts = 1, part = 0, copy = 0, copies = 1;
  };
  virtual UpdateGroup update_group() const { return {size(), rank(), 0, 1}; }
  // Whether sharded updates beat allreduce_sum here (shared memory: each rank sums and updates its own
  // part only); without that a caller allreduces and updates everything.
  virtual bool shards_updates() const { return false; }
  // The sum over every rank of the job, into this rank's part of its buffer (each element summed as
  // allreduce_sum sums it: the same bits); the rest of `data` is unspecified. Each rank's values are
  // multiplied by its own `scale` first (a rank's gradient clipping; the bits of scaling, then summing).
  // Default: the scaling, then allreduce_sum.
  virtual void reduce_scatter_sum(float* data, const std::vector<size_t>& bounds, float scale = 1.0f);
  // Each part of `data` (offsets in bytes) copied from its rank to every rank of the group. Default: a
  // broadcast per rank (one group: the job).
  virtual void allgather(void* data, const std::vector<size_t>& byte_bounds);
};

// DistError unless `bounds` are parts+1 ascending offsets from 0 (a sharded collective's parts).
void check_shard_bounds(const std::vector<size_t>& bounds, int parts);

// DistError unless 0 <= root < size (a collective's broadcast).
void check_broadcast_root(int root, int size);

// Shared memory between the ranks of one node (shm_collective.h; with BERT_DIST_CPU_TRANSPORT=shm on
// several nodes, nodes_collective.h: Gloo TCP between the nodes' local ranks 0), or Gloo TCP between
// all ranks (gloo_collective.h); rendezvous through the KV store. Size 1:
// a no-op collective. Create it on the thread that will outlive it (shared memory holds a robust mutex
// there).
std::unique_ptr<Collective> make_cpu_collective(const ProcessInfo& p, KVStore& kv);

}  // namespace bert::dist
