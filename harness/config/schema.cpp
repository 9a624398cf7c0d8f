#include "harness/config/schema.h"

#include <algorithm>
#include <set>

#include "harness/config/reference_figures.h"
#include "formats/shard_format.h"
#include "harness/config/settings.h"
#include "power/monitor_config.h"
#include "trainer/run_config_keys.h"

namespace bert::harness {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
using V = ValueType;

SchemaEntry str(std::string p, std::string def, std::string doc) { return {std::move(p), V::String, std::move(def), {}, {}, std::move(doc)}; }
SchemaEntry boolean(std::string p, std::string def, std::string doc) { return {std::move(p), V::Bool, std::move(def), {}, {}, std::move(doc)}; }
SchemaEntry integer(std::string p, std::string def, double lo, double hi, std::string doc) { return {std::move(p), V::Int, std::move(def), {lo, hi}, {}, std::move(doc)}; }
SchemaEntry real(std::string p, std::string def, double lo, double hi, bool lo_open, bool hi_open, std::string doc) { return {std::move(p), V::Float, std::move(def), {lo, hi, lo_open, hi_open}, {}, std::move(doc)}; }
std::vector<std::string> with_off(std::vector<std::string> words) {
  words.insert(words.begin(), "off");
  return words;
}
SchemaEntry oneof(std::string p, std::string def, std::vector<std::string> c, std::string doc) { return {std::move(p), V::Enum, std::move(def), {}, std::move(c), std::move(doc)}; }
SchemaEntry list(std::string p, V t, std::string doc) { return {std::move(p), t, "", {}, {}, std::move(doc)}; }
SchemaEntry map(std::string p, std::string doc) { return {std::move(p), V::StringMap, "", {}, {}, std::move(doc)}; }

// The benchmark.* rows of the trainer's run-config keys (trainer/run_config_keys.cpp), in its order.
std::vector<SchemaEntry> trainer_rows() {
  using bert::trainer::KeyType;
  std::vector<SchemaEntry> out;
  for (const bert::trainer::RunConfigKey& k : bert::trainer::run_config_keys()) {
    if (k.system_key.empty()) continue;
    SchemaEntry e{k.system_key, V::String, k.def, k.range, k.choices, k.doc};
    switch (k.type) {
      case KeyType::String: e.type = V::String; break;
      case KeyType::Int: e.type = V::Int; break;
      case KeyType::Float: e.type = V::Float; break;
      case KeyType::Bool: e.type = V::Bool; break;
      case KeyType::Enum: e.type = V::Enum; break;
    }
    if (k.system_auto) {  // the harness resolves `auto` (the system default) itself
      e.def = "auto";
      e.choices.insert(e.choices.begin(), "auto");
    }
    out.push_back(std::move(e));
  }
  return out;
}

// Every key but the trainer's benchmark.* ones and env.
std::vector<SchemaEntry> own_rows() {
  return {
      // identity (MLPerf systems/<system>.json and the submission_* log keys)
      str("system.name", "", "MLPerf system_desc_id: results/<name>/ and systems/<name>.json (default: config name)"),
      str("system.config_name", "", "MLPerf config name, e.g. DGXA100_1x8x56x1 (default: from the file name)"),
      str("system.submitter", "", "submitting organization"),
      oneof("system.status", "Available on-premise", {"Available on-premise", "Available cloud", "Research, Development, or Internal (RDI)", "Preview"}, "MLPerf availability status"),
      str("system.host_processor_model_name", "", "CPU model"),
      integer("system.host_processors_per_node", "0", 0, kInf, "CPU sockets per node (0 = from the topology)"),
      str("system.accelerator_model_name", "", "accelerator model"),
      str("system.host_memory_capacity", "", "e.g. 2 TB"),
      str("system.host_networking", "", "e.g. 8x 200Gb/s HDR InfiniBand"),
      str("system.framework", "bert-harness (C++/CUDA)", "framework name for the systems JSON"),
      str("system.operating_system", "", "operating system"),
      str("system.cooling", "", "cooling"),
      map("system.json", "further systems-JSON fields, verbatim"),
      str("system.cluster_name", "", "cluster name (informational)"),
      // nodes
      integer("nodes.count", "1", 1, 100000, "number of nodes"),
      {"nodes.gpus_per_node", V::IntOrAuto, "0", {0, 64}, {}, "accelerators per node; auto = as found by the topology"},
      integer("nodes.min_count", "0", 0, 100000, "fewest nodes the set may go on with when harness run --exclude leaves fewer "
              "(0 = nodes.count: the node count is fixed, as the global batch and the result's name depend on it)"),
      integer("nodes.ranks_per_node", "0", 0, 4096, "ranks per node (0 = one per GPU, or one per binding.unit on CPU-only nodes)"),
      // topology
      str("topology.xml", "", "hwloc XML file (relative to this YAML file)"),
      str("topology.synthetic", "", "hwloc synthetic description, e.g. 'pack:2 numa:1 core:8 pu:2'"),
      list("topology.gpu_numa_map", V::IntList, "GPU i -> OS NUMA node, when the topology lacks PCI locality"),
      str("topology.reserved_cpus", "", "hwloc CPU list owned by e.g. a WekaIO client; never given to a rank"),
      boolean("topology.compare", "true", "preflight: compare each node's live topology with this one and stop on a difference"),
      boolean("topology.assumed", "false",
              "the topology is an assumption (harness import: a config's DGXNGPU, DGXNSOCKET, ...), not a description of "
              "the node: the dry-run says so and the preflight compares only each node's GPU count with it"),
      str("topology.allowed_cpus", "", "override of the CPUs the job may use (default: the process's cpuset)"),
      // binding
      oneof("binding.cpu", "exclusive", {"exclusive", "exclusive-nosmt", "node", "socket", "none", "map"}, "CPU binding policy"),
      oneof("binding.mem", "node", {"node", "none", "map"}, "memory binding policy"),
      oneof("binding.unit", "auto", {"auto", "gpu", "socket", "numa"}, "what one rank stands for (auto: gpu when the node has GPUs, else socket)"),
      list("binding.cpu_map", V::StringList, "binding.cpu=map: one hwloc CPU list per local rank"),
      list("binding.mem_map", V::StringList, "binding.mem=map: one NUMA node list per local rank"),
      oneof("binding.nic", "auto", {"auto", "none", "map"},
            "each rank's RDMA NIC(s): auto = nearest by PCI locality (same PCI switch, host bridge, NUMA node, package), "
            "exported per rank as the launcher's libraries read them (NCCL_IB_HCA, UCX_NET_DEVICES, ...); none; map"),
      list("binding.nic_map", V::StringList, "binding.nic=map: per local rank its NIC(s), e.g. 'mlx5_0' or 'mlx5_0:1,mlx5_1:1'"),
      oneof("binding.apply", "bind", enum_choices(kBindingApplyNames),
            "who applies each rank's binding: our bind wrapper, the launcher's own mechanism (srun --cpu-bind/--mem-bind, "
            "an Open MPI rankfile, numactl locally), the trainer itself (e.g. NVIDIA's bindpcie), or the container "
            "runtime (podman/docker --cpuset-cpus/--cpuset-mems)"),
      // launcher
      oneof("launcher.type", "local", enum_choices(kLauncherTypeNames), "how ranks are started"),
      integer("launcher.master_port", "29500", 1, 65535, "MASTER_PORT for the rendezvous"),
      str("launcher.master_addr", "", "MASTER_ADDR for the rendezvous (default: localhost, the first mpirun host, or $MLPERF_SLURM_FIRSTNODE)"),
      oneof("launcher.srun.mpi", "pmix", {"pmi2", "pmix", "none"}, "srun --mpi type (env SLURM_MPI_TYPE overrides)"),
      boolean("launcher.srun.gres_every_step", "false", "add --gres=gpu:<gpus_per_node> to every srun (Inventec)"),
      boolean("launcher.srun.label", "true", "srun -l (prefix lines with the task id)"),
      boolean("launcher.srun.kill_on_bad_exit", "true", "srun --kill-on-bad-exit=1"),
      str("launcher.srun.time_per_run", "", "per-run srun --time (minutes or [hh:]mm:ss)"),
      list("launcher.srun.extra_flags", V::StringList, "further srun flags, one per entry"),
      str("launcher.mpirun.program", "mpirun", "Open MPI launcher"),
      list("launcher.mpirun.hosts", V::StringList, "one host per node"),
      str("launcher.mpirun.hostfile", "", "Open MPI hostfile (instead of hosts)"),
      list("launcher.mpirun.extra_flags", V::StringList, "further mpirun flags, one per entry"),
      // container; empty image = bare metal
      str("container.image", "", "squashfs path, docker://image, or registry#image:tag (env CONT overrides)"),
      oneof("container.runtime", "pyxis", {"pyxis", "enroot", "podman", "docker", "apptainer"},
            "what starts the container (container/*.cpp): pyxis under srun; enroot, apptainer under any launcher, "
            "bound by it; podman, docker with launcher.type local, each rank bound by --cpuset-cpus/--cpuset-mems"),
      str("container.name", "bert", "pyxis/enroot container name; _<SLURM_JOB_ID> is appended inside a job"),
      list("container.mounts", V::Mounts, "extra mounts 'SRC:DST[:FLAGS]' (data, eval, checkpoint and results are added)"),
      boolean("container.mount_infiniband", "false", "mount /dev/infiniband"),
      str("container.workdir", "/workspace/bert", "working directory inside the container"),
      list("container.env", V::StringList, "--container-env names whose host value must win"),
      boolean("container.mount_home", "false", "let pyxis mount $HOME (false: --no-container-mount-home)"),
      boolean("container.remap_root", "false", "--container-remap-root"),
      boolean("container.writable", "false", "--container-writable"),
      str("container.bin_dir", "/usr/local/bin", "where bind, trainer and bert-data live inside the container"),
      // trainer: what every rank runs (profiles as data in harness/plan/trainer_profiles.cpp)
      oneof("trainer.kind", "builtin", enum_choices(kTrainerKindNames), "builtin: our trainer; external: trainer.argv, an implementation of its own"),
      str("trainer.profile", "", "external: the implementation's conventions, a profile of harness/plan/trainer_profiles.cpp (e.g. nvidia-pytorch; default generic)"),
      list("trainer.argv", V::StringList, "external: the program and its arguments every rank runs (default: the profile's)"),
      str("trainer.workdir", "", "external: working directory of trainer.argv, inside the container when there is one (default: the profile's)"),
      map("trainer.env", "external: environment of every rank, verbatim (e.g. a config_*.sh's variables)"),
      oneof("trainer.log.source", "rank0-stdout", enum_choices(kLogSourceNames), "where a run's MLPerf log comes from"),
      str("trainer.log.file", "", "log.source file: the run's log, relative to experiment.output_dir or under the profile's results mount (/results); {i} = experiment index 1..NEXP, * ? [..] as in the shell: exactly one file the run wrote must match"),
      // experiment
      integer("experiment.nexp", "10", 1, 1000, "number of runs (env NEXP overrides)"),
      oneof("experiment.cache_clear", "required", enum_choices(kCachePolicyNames), "page-cache clearing before each run"),
      boolean("experiment.cache_clear_sudo", "false", "run drop_caches through sudo"),
      str("experiment.run_walltime", "", "per-experiment watchdog, a Slurm time (NVIDIA's WALLTIME_RUNANDTIME, env overrides); default (job_walltime - 5) / NEXP - 5 minutes"),
      str("experiment.job_walltime", "", "sbatch --time of the whole set (NVIDIA's WALLTIME, env overrides); default 5 + NEXP x (run_walltime + 5) minutes"),
      str("experiment.seed_policy", "random", "random | fixed:<n> | sequence:<base>"),
      str("experiment.output_dir", "output", "root of logs/, results/, summary.md (env LOGDIR overrides)"),
      str("experiment.ruleset", "5.0.0", "MLPerf training ruleset"),
      oneof("experiment.division", "closed", enum_choices(kDivisionNames), "MLPerf division"),
      // power: MLPerf power measurement (a monitor on every node for every run; power/README.md)
      oneof("power.source", "off", with_off(enum_choices(power::kSourceNames)),
            "what gives each node's power: ipmi (ipmitool: the BMC over the LAN, or in-band), redfish (the BMC's chassis "
            "Power resource over HTTPS), command (any command that prints watts), nvml (the GPUs' sum: not node-level, "
            "open division only); off = no power measurement"),
      real("power.interval", "1", 0, 60, true, false, "seconds between readings (MLPerf: at most 1)"),
      oneof("power.measurement_type", "AC", enum_choices(power::kMeasurementTypeNames), "where the readings are taken: AC (at the PSU's input or the PDU) or DC"),
      real("power.conversion_eff", "1", 0, 1, true, false,
           "AC: the PSU's documented AC/DC conversion efficiency (e.g. 0.94); DC: 1"),
      str("power.command", "", "source command: a shell command that prints the node's watts (its first number)"),
      map("power.bmc", "each node's BMC address, host or host:port (ipmi over the LAN, redfish), by node name"),
      str("power.credentials_file", "", "the BMCs' username: and password: (YAML, mode 600); default $BMC_USERNAME and "
          "$BMC_PASSWORD in the monitors' environment. Never written to the plan or a log"),
      str("power.monitor", "", "the power-monitor program (default: the one beside the harness)"),
      oneof("power.ipmi.interface", "lanplus", enum_choices(power::kIpmiInterfaceNames), "ipmitool -I: lanplus (IPMI 2.0 to power.bmc), lan, or open (in-band)"),
      oneof("power.ipmi.reading", "dcmi", enum_choices(power::kIpmiReadingNames), "dcmi power reading, or an SDR power sensor by name (BMCs without DCMI)"),
      str("power.ipmi.sensor", "", "ipmi.reading sensor: the SDR name of the node's power sensor, e.g. 'Pwr Consumption'"),
      integer("power.ipmi.cipher_suite", "-1", -1, 255, "lanplus -C (-1 = ipmitool's default)"),
      str("power.ipmi.program", "ipmitool", "the ipmitool program on the nodes"),
      str("power.redfish.chassis", "", "the chassis Id whose Power resource is read (default: the first that has one)"),
      str("power.redfish.ca_file", "", "CA bundle for the BMCs' certificates (default: the system's)"),
      boolean("power.redfish.verify_tls", "true", "verify the BMCs' certificates"),
      integer("power.interconnect.switches", "0", 0, 100000, "switches of the interconnect the run uses (one sw_<k>.txt each)"),
      real("power.interconnect.rated_watts", "0", 0, kInf, false, true, "each switch's maximum rated power (W)"),
      real("power.interconnect.share", "1", 0, 1, false, false, "the share of each switch the run uses (its ports, 0..1)"),
      integer("power.gpu_clock_mhz", "0", 0, 100000, "lock the GPUs' clocks to this (nvidia-smi -lgc) before the set, reset after; 0 = leave them"),
      oneof("benchmark.synthetic.format", "varlength", enum_choices(data::kFormatNames), "synthetic data: format"),
      integer("benchmark.synthetic.shards", "4", 1, 100000, "synthetic data: shards"),
      integer("benchmark.synthetic.samples_per_shard", "1024", 1, 1e9, "synthetic data: samples per shard"),
      integer("benchmark.synthetic.eval_samples", "512", 1, 1e9, "synthetic data: eval samples"),
      integer("benchmark.synthetic.seed", "1234", 0, 4294967295.0, "synthetic data: generator seed"),
      str("benchmark.synthetic.dir", "", "where synthetic data is made (default <output_dir>/data)"),
      integer("benchmark.synthetic.topics", "0", 0, 1e6, "synthetic data: grammar topics (0 = bert-data's default)"),
      integer("benchmark.synthetic.content_tokens", "0", 0, 1e7, "synthetic data: content ids the grammar uses (0 = all)"),
      real("benchmark.synthetic.topic_skew", "0", 0, 1, false, true,
           "synthetic data: P(next token from the topic's peaked distribution) (0 = off)"),
  };
}

// references.<figure>.target / .tolerance, one pair per row of reference_figures.h.
std::vector<SchemaEntry> reference_rows() {
  std::vector<SchemaEntry> out;
  for (const ReferenceFigure& f : kReferenceFigures) {
    const std::string key = "references." + std::string(f.key);
    out.push_back(real(key + ".target", "", 0, kInf, true, true,
                       "acceptance reference (" + std::string(f.unit) + "): " + std::string(f.what) +
                           "; met when " + (f.lower_is_better ? "at most target x (1 + tolerance)" : "at least target x (1 - tolerance)") +
                           " (none when not given)"));
    out.push_back(real(key + ".tolerance", "0.05", 0, kInf, false, true,
                       "how far " + key + " may be " + (f.lower_is_better ? "exceeded" : "undercut") + ", a fraction of the target"));
  }
  return out;
}

std::vector<SchemaEntry> make_schema() {
  std::vector<SchemaEntry> rows = own_rows();
  std::vector<SchemaEntry> references = reference_rows();
  rows.insert(rows.end(), references.begin(), references.end());
  std::vector<SchemaEntry> trainer = trainer_rows();
  rows.insert(rows.end(), trainer.begin(), trainer.end());
  rows.push_back(map("env", "job-wide environment (NCCL_*, IX_NUM_CUDA_VISIBLE_DEVICES, ...)"));
  return rows;
}

}  // namespace

const std::vector<SchemaEntry>& schema() {
  static const std::vector<SchemaEntry> s = make_schema();
  return s;
}

const SchemaEntry* schema_find(const std::string& path) {
  for (const SchemaEntry& e : schema())
    if (e.path == path) return &e;
  return nullptr;
}

bool schema_is_group(const std::string& prefix) {
  for (const SchemaEntry& e : schema())
    if (e.path.size() > prefix.size() && e.path.compare(0, prefix.size(), prefix) == 0 && e.path[prefix.size()] == '.')
      return true;
  return false;
}

std::vector<std::string> schema_children(const std::string& prefix) {
  std::set<std::string> names;
  for (const SchemaEntry& e : schema()) {
    std::string rest;
    if (prefix.empty()) rest = e.path;
    else if (e.path.size() > prefix.size() && e.path.compare(0, prefix.size() + 1, prefix + ".") == 0)
      rest = e.path.substr(prefix.size() + 1);
    else continue;
    names.insert(rest.substr(0, rest.find('.')));
  }
  return {names.begin(), names.end()};
}

std::string type_name(const SchemaEntry& e) {
  switch (e.type) {
    case V::String: return "a string";
    case V::Int: return "an integer";
    case V::Float: return "a number";
    case V::Bool: return "true or false";
    case V::Enum: {
      std::string s = "one of";
      for (size_t i = 0; i < e.choices.size(); ++i) s += (i ? ", " : " ") + e.choices[i];
      return s;
    }
    case V::StringList: return "a list of strings";
    case V::IntList: return "a list of integers";
    case V::IntOrAuto: return "an integer or auto";
    case V::StringMap: return "a mapping of names to strings";
    case V::Mounts: return "a list of 'SRC:DST[:FLAGS]' strings";
  }
  return "?";
}

}  // namespace bert::harness
