#include "harness/run/preflight.h"

#include <map>
#include <set>
#include <sstream>

#include "binding/binding.h"
#include "binding/cpu_list.h"
#include "harness/launch/launcher.h"
#include "process/capture.h"
#include "harness/run/output_router.h"

namespace bert::harness {
namespace {

// Each line of `bind --compare-topology` as "topology_<exit code> <line>"; the token's content or its absence.
std::string blocking_probes(const PreflightChecks& c) {
  std::string s;
  if (!c.bind.empty() && !c.expected_topology.empty()) {
    const std::string bind = shell_quote(c.bind);
    s += "if [ -x " + bind + " ]; then\n  out=$(" + bind + " --compare-topology " + shell_quote(c.expected_topology) +
         " 2>&1); rc=$?\n  printf '%s\\n' \"$out\" | sed \"s/^/topology_$rc /\"\nelse\n  echo \"note no " + c.bind +
         " on this node: its topology was not compared with the plan's\"\nfi\n";
  }
  for (const auto& [key, path] : c.data_paths)
    s += "[ -r " + shell_quote(path) + " ] || echo \"data_missing " + key + " \"" + shell_quote(path) + "\n";
  if (c.expected_gpus >= 0)
    s += "if command -v nvidia-smi >/dev/null 2>&1; then echo \"gpu_count $(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')\"; fi\n";
  if (!c.token_path.empty())
    s += "if [ -r " + shell_quote(c.token_path) + " ]; then echo \"shared_token $(cat " + shell_quote(c.token_path) +
         ")\"; else echo shared_missing; fi\n";
  return s;
}

}  // namespace

std::string preflight_probe_script(const PreflightChecks& c) {
  // Kernel threads (PPid 2) are pinned by design and skipped; the probe's own shell and grep are
  // reported by pid so the parser can drop them.
  return R"SH(echo "probe_pid $$"
online=$(cat /sys/devices/system/cpu/online 2>/dev/null)
echo "online $online"
if command -v nvidia-smi >/dev/null 2>&1; then
  if out=$(nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader 2>&1); then
    printf '%s\n' "$out" | sed -n 's/^\(.\)/gpu_proc \1/p'
  else
    echo "note nvidia-smi failed: $(printf '%s' "$out" | head -n 1)"
  fi
else
  echo "note no nvidia-smi on this node: GPU processes not checked"
fi
if command -v enroot >/dev/null 2>&1; then
  enroot list 2>/dev/null | sed -n 's/^\(.\)/container \1/p'
fi
awk '/^MemTotal:/{print "mem_total_kb " $2} /^MemAvailable:/{print "mem_avail_kb " $2}' /proc/meminfo
grep -H -e '^Name:' -e '^PPid:' -e '^Cpus_allowed_list:' /proc/[0-9]*/status 2>/dev/null | sed 's/^/status /'
)SH" + blocking_probes(c);
}

ChildSpec preflight_command(const Plan& plan, const PreflightChecks& checks) {
  // The launcher's one-task-per-node prefix (with the site's flags), its output tags, the probe.
  ChildSpec spec{plan.per_node.argv, plan.env};
  for (const auto& [k, v] : plan.per_node.env) spec.env[k] = v;
  for (const std::string& f : find_launcher(plan.launcher).per_node_tag_flags()) spec.argv.push_back(f);
  for (const std::string w : {"sh", "-c"}) spec.argv.push_back(w);
  spec.argv.push_back(preflight_probe_script(checks));
  return spec;
}

std::vector<std::string> split_probe_output(const Plan& plan, const std::string& output) {
  const size_t n = std::max<size_t>(1, plan.nodes.size());
  std::vector<std::string> per_node(n);
  const RankTagStyle style = find_launcher(plan.launcher).tag_style();
  auto add = [&](int task, const std::string& line) {
    if (task >= 0 && size_t(task) < n) per_node[size_t(task)] += line + "\n";
  };
  if (style == RankTagStyle::OpenMpi) {
    MpirunDemux d(add);
    d.feed(output);
    d.finish();
    return per_node;
  }
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) add(style == RankTagStyle::BySource ? 0 : strip_rank_tag(style, line), line);
  return per_node;
}

std::vector<PreflightFinding> parse_probe_output(const std::string& node, const std::string& output,
                                                 const std::string& bound_cpus, const PreflightChecks& checks) {
  std::vector<PreflightFinding> out;
  struct Proc { std::string name, cpus; int ppid = -1; };
  std::map<int, Proc> procs;
  std::set<int> probe_pids;
  std::string online;
  long long mem_total = 0, mem_avail = 0;
  std::string topology_message, token;
  bool token_seen = false;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    auto sp = line.find(' ');
    std::string tag = line.substr(0, sp), rest = sp == std::string::npos ? "" : line.substr(sp + 1);
    if (tag == "probe_pid") probe_pids.insert(std::atoi(rest.c_str()));
    else if (tag.rfind("topology_", 0) == 0 && tag != "topology_0") topology_message += rest + "\n";
    else if (tag == "shared_token") token_seen = true, token = rest;
    else if (tag == "data_missing") {
      const auto sp2 = rest.find(' ');
      out.push_back({node, rest.substr(0, sp2) + ": " + rest.substr(sp2 + 1) + " cannot be read on this node (missing, or not "
                               "mounted there): every run would fail on it", true});
    } else if (tag == "gpu_count" && checks.expected_gpus >= 0 && std::atoi(rest.c_str()) < checks.expected_gpus)
      out.push_back({node, "has " + rest + " GPU(s) (nvidia-smi -L) but the plan assumes " + std::to_string(checks.expected_gpus) +
                               " per node (nodes.gpus_per_node, from the config's DGXNGPU)", true});
    else if (tag == "online") online = rest;
    else if (tag == "gpu_proc") out.push_back({node, "process already on a GPU: " + rest});
    else if (tag == "container") out.push_back({node, "leftover enroot/pyxis container: " + rest});
    else if (tag == "mem_total_kb") mem_total = std::atoll(rest.c_str());
    else if (tag == "mem_avail_kb") mem_avail = std::atoll(rest.c_str());
    else if (tag == "status") {
      // "/proc/<pid>/status:<Field>:\t<value>"
      if (rest.rfind("/proc/", 0) != 0) continue;
      int pid = std::atoi(rest.c_str() + 6);
      auto colon = rest.find(':');
      if (colon == std::string::npos) continue;
      std::string field = rest.substr(colon + 1);
      auto fc = field.find(':');
      if (fc == std::string::npos) continue;
      std::string name = field.substr(0, fc), value = field.substr(fc + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      if (name == "Name") procs[pid].name = value;
      else if (name == "PPid") procs[pid].ppid = std::atoi(value.c_str());
      else if (name == "Cpus_allowed_list") procs[pid].cpus = value;
    }
  }
  if (!topology_message.empty()) {
    topology_message.pop_back();
    out.push_back({node, topology_message, true});
  }
  if (!checks.token_path.empty() && (!token_seen || token != checks.token))
    out.push_back({node,
                   "the output directory is not shared: this node " + std::string(token_seen ? "reads another " : "cannot read ") +
                       checks.token_path + " than the harness wrote on the first node; every node must see "
                       "experiment.output_dir (a node-local disk such as /raid is not shared)",
                   true});
  if (mem_total > 0 && mem_avail * 4 < mem_total)
    out.push_back({node, "only " + std::to_string(mem_avail / 1024) + " MiB of " + std::to_string(mem_total / 1024) +
                             " MiB memory available"});
  if (!bound_cpus.empty() && !online.empty()) {
    binding::IndexList bound, all;
    try {
      bound = binding::parse_list(bound_cpus, "binding");
      all = binding::parse_list(online, "online");
    } catch (const std::exception&) {
      return out;
    }
    for (const auto& [pid, p] : procs) {
      if (probe_pids.count(pid) || probe_pids.count(p.ppid) || pid == 2 || p.ppid == 2 || p.cpus.empty()) continue;
      binding::IndexList allowed;
      try {
        allowed = binding::parse_list(p.cpus, "Cpus_allowed_list");
      } catch (const std::exception&) {
        continue;
      }
      if (binding::list_minus(all, allowed).empty()) continue;  // not pinned
      auto overlap = binding::list_intersect(allowed, bound);
      if (!overlap.empty())
        out.push_back({node, "process " + std::to_string(pid) + " (" + p.name + ") is pinned to CPUs " + p.cpus +
                                 ", which our ranks are bound to (" + binding::format_list(overlap) + ")"});
    }
  }
  return out;
}

PreflightReport run_preflight(const Plan& plan, const PreflightChecks& checks) {
  PreflightReport rep;
  Captured c = run_capture(preflight_command(plan, checks), 120);
  if (!c.started || c.timed_out) {
    rep.notes.push_back("preflight probe could not run: " + c.describe());
    return rep;
  }
  auto per_node = split_probe_output(plan, c.output);
  for (size_t i = 0; i < per_node.size(); ++i) {
    std::string host = i < plan.nodes.size() ? plan.nodes[i].hostname : "localhost";
    if (per_node[i].empty()) {
      rep.notes.push_back(host + ": no preflight output (" + c.describe() + ")");
      continue;
    }
    binding::IndexList bound;
    if (i < plan.nodes.size())
      for (const auto& r : plan.nodes[i].ranks) {
        try {
          bound = binding::list_union(bound, binding::parse_list(r.binding.cpus, "binding"));
        } catch (const std::exception&) {
        }
      }
    std::istringstream in(per_node[i]);
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("note ", 0) == 0) rep.notes.push_back(host + ": " + line.substr(5));
    for (auto& f : parse_probe_output(host, per_node[i], binding::format_list(bound), checks)) rep.findings.push_back(f);
  }
  return rep;
}

}  // namespace bert::harness
