#include "harness/plan/print_plan.h"
#include "harness/plan/power_plan.h"

#include <fmt/format.h>

#include "container/runtime.h"
#include "harness/launch/launcher.h"
#include "harness/plan/gpu_fp8.h"
#include "harness/plan/walltime.h"
#include "harness/plan/print_trainer.h"
#include "trainer/backend.h"

namespace bert::harness {
namespace {

bool same_binding(const NodePlan& a, const NodePlan& b) {
  if (a.ranks.size() != b.ranks.size()) return false;
  for (size_t i = 0; i < a.ranks.size(); ++i) {
    const auto& x = a.ranks[i].binding;
    const auto& y = b.ranks[i].binding;
    if (x.gpu != y.gpu || x.cpus != y.cpus || x.mems != y.mems || x.gpu_busid != y.gpu_busid || x.nics != y.nics)
      return false;
  }
  return true;
}

// "mlx5_0:1 (pci-switch)"; the column is shown only when a rank has a NIC.
std::string nics_cell(const binding::RankBinding& b) {
  std::string s;
  for (const auto& n : b.nics) s += (s.empty() ? "" : ",") + n;
  return s.empty() ? "-" : s + " (" + b.nic_locality + ")";
}

// `unknown`: the topology is assumed, so no rank has a CPU or memory binding (see build_plan).
void print_node(const NodePlan& node, size_t index, bool unknown, std::string& out) {
  bool nics = false;
  for (const RankPlan& r : node.ranks) nics = nics || !r.binding.nics.empty();
  out += fmt::format("node {} ({})\n", index, node.hostname);
  std::string head = fmt::format("  {:>5} {:>7} {:>4}  {:<13} {:>5}  {:<24} {}", "rank", "global", "gpu", "pci bus id", "numa", "cpus",
                                 nics ? "mems  nics" : "mems");
  out += head + "\n";
  for (const RankPlan& r : node.ranks) {
    const auto& b = r.binding;
    const std::string none = unknown ? "(unknown)" : "(unbound)";
    std::string mems = b.mems.empty() ? none : b.mems;
    if (nics) mems = fmt::format("{:<5} {}", mems, nics_cell(b));
    out += fmt::format("  {:>5} {:>7} {:>4}  {:<13} {:>5}  {:<24} {}\n", r.local_rank, r.global_rank,
                       b.gpu < 0 ? std::string("-") : std::to_string(b.gpu), b.gpu_busid.empty() ? "-" : b.gpu_busid,
                       b.numa_node < 0 ? std::string(unknown ? "?" : "-") : std::to_string(b.numa_node), b.cpus.empty() ? none : b.cpus,
                       mems);
  }
}

// "walltime    per experiment 8 (watchdog), job 135 (sbatch --time) = 5 + NEXP 10 x (run 8 + 5) minutes"
std::string walltime_line(const ExperimentPlan& e) {
  // A Slurm time written another way than ours (00:70:00) also as Slurm reads it (70).
  auto shown = [](const std::string& t) {
    if (t.empty()) return std::string("none");
    const std::string as_read = format_walltime(parse_walltime_seconds(t));
    return as_read == t ? t : t + " (" + (as_read.find(':') == std::string::npos ? as_read + " min" : as_read) + ")";
  };
  const std::string job = is_unlimited_walltime(e.job_walltime)
                              ? e.job_walltime + " (sbatch --time=" + e.job_walltime + ": no limit but the partition's)"
                              : shown(e.job_walltime) + " (sbatch --time)";
  const std::string rule = walltime_rule({e.run_walltime, e.job_walltime, e.walltime_derived, ""}, e.nexp);
  return fmt::format("walltime    per experiment {} (watchdog){}, job {}{}\n", shown(e.run_walltime),
                     e.walltime_derived == "run" ? " = " + rule : "", job, e.walltime_derived == "job" ? " = " + rule : "");
}

}  // namespace

// The last probe's projection: what it measured, what it projects, the --set lines that apply it.
std::string probe_lines(const ProbeProjection& pr, const std::string& file) {
  std::string out = fmt::format("probe       {} ({}): {:.1f} samples/s after warm-up ({} {}, {} dropped), init {:.1f} s, "
                                "eval {:.1f} s\n", pr.measured_at, file, pr.samples_per_s, pr.measured,
                                pr.method == "points" ? "intervals" : "throughput values", pr.dropped, pr.init_s, pr.eval_s);
  if (pr.rcp.empty()) return out + "            no projection: " + pr.note + "\n";
  if (pr.basis == "rcp")
    out += fmt::format("            time to train {:.1f} min projected at the RCP mean {:.0f} samples ({}); slowest reference "
                       "run {:.0f} samples: {:.1f} min\n", pr.projected_minutes, pr.rcp_mean_samples, pr.rcp,
                       pr.rcp_max_samples, pr.slowest_minutes);
  else
    out += fmt::format("            time to train {:.1f} min projected at {:.0f} samples to target {:g} ({}: {})\n",
                       pr.projected_minutes, pr.rcp_mean_samples, pr.target, pr.basis, pr.rcp);
  out += fmt::format("            walltime per run {} = (init + slowest) x {:.2f} (margin {:.0f} %), job {} for NEXP {}\n",
                     pr.run_walltime, 1 + pr.margin, pr.margin * 100, pr.job_walltime, pr.nexp);
  std::string sets;
  for (const std::string& s : pr.set_lines) sets += (sets.empty() ? "" : " ") + s;
  return out + "            " + sets + "\n";
}

void print_dry_run(const Plan& p, std::ostream& os) {
  std::string out;
  const binding::NodeTopology& t = p.nodes.front().topology;
  out += fmt::format("system      {} ({})\n", p.config_name, p.system_file);
  out += fmt::format("results as  {} (ruleset {}, {} division)\n", p.system_name, p.experiment.ruleset,
                     enum_name(p.experiment.division, kDivisionNames));
  const std::string launcher = p.launcher + (p.mpi.empty() ? "" : " --mpi=" + p.mpi);
  std::string excluded;
  for (const std::string& x : p.excluded) excluded += (excluded.empty() ? "" : ",") + x;
  out += fmt::format("nodes       {} x {} ranks = {} ranks, launcher {}{}\n", p.num_nodes, p.ranks_per_node, p.world_size, launcher,
                     excluded.empty() ? "" : ", excluded " + excluded);
  std::string nics;
  for (const auto& n : t.nics) nics += (nics.empty() ? "" : ", ") + n.name;
  out += fmt::format("topology    {}{}: {} package(s), {} cores, {} PUs, {} NUMA node(s), {} GPU(s){}\n",
                     p.topology_assumed ? "assumed " : "", t.source, t.packages, t.cores, t.pus, t.numa.size(), t.gpus.size(),
                     nics.empty() ? "" : fmt::format(", {} NIC(s): {}", t.nics.size(), nics));
  if (p.topology_assumed)
    out += "            (assumed from the config's variables, not read from any node: which CPUs and memory are near each GPU "
           "is unknown, so no rank is bound to any (the table says unknown); the preflight checks each node's GPU count; "
           "give topology.xml of the real node to bind)\n";
  out += fmt::format("cpus        allowed {}, reserved {}\n", t.allowed_cpus.empty() ? "(none)" : t.allowed_cpus,
                     t.reserved_cpus.empty() ? "none" : t.reserved_cpus);
  out += fmt::format("binding     cpu {}, mem {}, unit {}{}\n", p.binding.cpu, p.binding.mem, p.binding.unit,
                     p.binding.nic == "auto" ? "" : ", nic " + p.binding.nic);
  // Which variables carry each rank's NICs (its row below says which NICs).
  std::string nic_vars;
  const std::map<std::string, std::string> none;
  const auto& r0 = p.nodes.empty() || p.nodes.front().ranks.empty() ? none : p.nodes.front().ranks.front().env;
  for (const NicVariable& v : find_launcher(p.launcher).nic_variables())
    if (r0.contains(v.name)) nic_vars += (nic_vars.empty() ? "" : ", ") + std::string(v.name) + "=" + r0.at(v.name);
  if (!nic_vars.empty())
    out += fmt::format("nic env     per rank, rank 0: {} ({})\n", nic_vars,
                       p.binding.apply == BindingApply::Bind ? "exported by bind" : "in its environment");
  out += fmt::format("container   {}\n", p.container.image.empty() ? "none (bare metal)" : p.container.image + " (" + p.container.runtime + ")");
  const auto& tc = p.trainer_config;
  out += fmt::format("benchmark   model {}, {} data, batch {} x accum {}, lr {}, max_steps {}, target {}, backend {} {}\n",
                     tc["model"]["size"].get<std::string>(), tc["data"]["data_format"].get<std::string>(),
                     tc["batch"]["batch_size"].get<long long>(), tc["batch"]["gradient_accumulation_steps"].get<long long>(),
                     tc["optimizer"]["learning_rate"].get<double>(), tc["optimizer"]["max_steps"].get<long long>(),
                     p.target_accuracy, tc["run"]["backend"].get<std::string>(),
                     tc["run"]["precision"].get<std::string>());
  if (p.trainer_run.kind != TrainerKind::External &&
      parse_enum(tc["run"]["backend"].get<std::string>(), trainer::kBackendNames) == trainer::Backend::Cuda) {  // can fp8 run here
    const GpuFp8 fp8 = gpu_fp8(p.system_json.value("accelerator_model_name", std::string()));
    out += fmt::format("fp8         {}: benchmark.precision fp8 {}\n", fp8.why, fp8.has_fp8 ? "runs here" : "is refused");
  }
  out += fmt::format("trainer     {} ({})\n", p.trainer_program, p.trainer_status);
  if (!p.rcp.empty()) out += "rcp         " + p.rcp + "\n";
  for (const ReferenceTarget& r : p.references)  // only the given ones: a system without references prints none
    out += fmt::format("reference   {} {:g} (tolerance {:g}%)\n", r.figure, r.target, r.tolerance * 100);
  std::string seeds;
  for (size_t i = 0; i < p.experiment.seeds.size(); ++i) {
    if (i) seeds += ',';
    seeds += std::to_string(p.experiment.seeds[i]);
  }
  out += fmt::format("experiment  NEXP {}, cache clear {}{}, output {}\n", p.experiment.nexp,
                     enum_name(p.experiment.cache_clear, kCachePolicyNames), p.experiment.cache_clear_sudo ? " (sudo)" : "",
                     p.experiment.output_dir);
  out += walltime_line(p.experiment);
  out += power_dry_run_lines(p);
  if (p.probe) out += probe_lines(*p.probe, p.probe_file);
  if (p.experiment.seed_policy.kind == SeedKind::Random && p.experiment.seeds_recorded_in.empty())  // not these: drawn at the start
    out += fmt::format("seeds       random: drawn when the set starts, recorded in {}/state.json, reused by --resume\n",
                       p.experiment.output_dir);
  else
    out += fmt::format("seeds       {}: {}{}\n", p.experiment.seed_policy.word(), seeds,
                       p.experiment.seeds_recorded_in.empty() ? "" : " (recorded in " + p.experiment.seeds_recorded_in + ")");
  for (const auto& [k, v] : p.env) out += fmt::format("env         {}={}\n", k, v);
  out += trainer_dry_run_lines(p);
  for (const std::string& w : p.warnings) out += "warning     " + w + "\n";
  out += "\n";

  size_t i = 0;
  while (i < p.nodes.size()) {
    print_node(p.nodes[i], i, p.topology_assumed, out);
    size_t j = i + 1;
    while (j < p.nodes.size() && same_binding(p.nodes[i], p.nodes[j])) ++j;
    if (j > i + 1) {
      out += fmt::format("nodes {}-{}: same local binding as node {} (global ranks {}-{})\n", i + 1, j - 1, i,
                         p.nodes[i + 1].ranks.front().global_rank, p.nodes[j - 1].ranks.back().global_rank);
    }
    i = j;
  }
  out += "\ncommands\n";
  if (!p.submit.argv.empty()) out += "  submit:       " + p.submit.shell() + "\n";
  for (const Command& c : p.setup)
    out += "  setup:        " + c.shell() + (c.creates.empty() ? "" : "    # only when " + c.creates + " is missing") + "\n";
  out += "  cache clear:  " + (p.cache_clear.argv.empty() ? std::string("(off)") : p.cache_clear.shell()) + "\n";
  out += "  launch:       " + p.launch.shell() + "\n";
  out += power_command_lines(p);
  // A runtime that binds each rank: its per-rank words (the launcher's are printed with the trainer).
  const container::Runtime* rt = p.container.runtime.empty() ? nullptr : container::find_runtime(p.container.runtime);
  for (const NodePlan& n : p.nodes)
    for (const RankPlan& r : n.ranks)
      if (rt && rt->binds_ranks() && !r.command_prefix.empty()) {
        std::vector<std::string> argv = r.command_prefix;
        argv.insert(argv.end(), p.launch.argv.begin(), p.launch.argv.end());
        out += fmt::format("    rank {:>3}:   {}\n", r.global_rank, Command{argv, {}, {}, {}}.shell());
      }
  if (find_launcher(p.launcher).starts_each_rank())
    out += fmt::format("                started {} time(s), each with its rank's RANK/LOCAL_RANK/... environment\n", p.ranks_per_node);
  for (const auto& [path, text] : p.files) out += "  file:         " + path + "\n" + text;
  out += "  plan file:    " + p.plan_file + "\n";
  out += "  run config:   " + p.run_config_file + "\n";
  os << out;
}

}  // namespace bert::harness
