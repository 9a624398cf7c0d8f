#include "harness/plan/power_plan.h"

#include <fmt/format.h>

#include "harness/plan/host_tool.h"
#include "power/credentials.h"
#include "power/monitor_config.h"

namespace bert::harness {
namespace {

std::vector<std::string> joined(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The clock lock and reset, once on every node (the launcher's per-node prefix), as NVIDIA's run.sub does.
void add_clock_commands(Plan& plan, const Config& cfg, int gpus) {
  PowerPlan& p = plan.power;
  p.gpu_clock_mhz = static_cast<int>(cfg.integer("power.gpu_clock_mhz"));
  if (p.gpu_clock_mhz == 0) return;
  if (gpus == 0) cfg.fail("power.gpu_clock_mhz", "the nodes have no GPU whose clocks could be locked");
  const std::string mhz = std::to_string(p.gpu_clock_mhz);
  p.clock_lock.argv = joined(plan.per_node.argv, {"nvidia-smi", "-lgc", mhz + "," + mhz});
  p.clock_lock.env = plan.per_node.env;
  p.clock_reset.argv = joined(plan.per_node.argv, {"nvidia-smi", "-rgc"});
  p.clock_reset.env = plan.per_node.env;
}

}  // namespace

void add_power(Plan& plan, const Config& cfg, const Launcher& launcher, const std::string& bin_dir, bool hosts_known, int gpus) {
  add_clock_commands(plan, cfg, gpus);
  const std::string word = cfg.str("power.source");
  if (word == "off") return;
  PowerPlan& p = plan.power;
  const bool closed = plan.experiment.division == Division::Closed;
  p.source = word;
  power::MonitorConfig m;
  if (auto s = parse_enum(word, power::kSourceNames)) m.source = *s;
  else cfg.fail("power.source", "'" + word + "' is not a source the monitor knows");
  p.interval_s = m.interval_s = cfg.real("power.interval");
  if (p.interval_s > 1) {
    if (closed) cfg.fail("power.interval", fmt::format("{:g} s: MLPerf power needs at least one reading a second", p.interval_s));
    plan.warnings.push_back(fmt::format("power.interval {:g} s: fewer than one reading a second, not an MLPerf power result", p.interval_s));
  }
  p.measurement_type = m.measurement_type = setting(cfg, "power.measurement_type", power::kMeasurementTypeNames);
  p.conversion_eff = m.conversion_eff = cfg.real("power.conversion_eff");
  p.conversion_eff_given = cfg.given("power.conversion_eff");
  if (p.measurement_type == power::MeasurementType::DC && p.conversion_eff != 1)
    cfg.fail("power.conversion_eff", "DC readings are taken after the PSU's conversion: their efficiency is 1");
  if (p.measurement_type == power::MeasurementType::AC && !p.conversion_eff_given) {
    if (closed)
      cfg.fail("power.conversion_eff", "AC readings need the PSUs' documented AC/DC conversion efficiency (e.g. 0.94) for a "
                                       "closed-division power result");
    plan.warnings.push_back("power.conversion_eff not given: AC readings are logged with conversion_eff 1.0 (the default, not "
                            "a documented PSU efficiency)");
  }
  if (m.source == power::Source::Nvml) {
    p.node_level = false;
    if (closed)
      cfg.fail("power.source", "nvml sums the GPUs only, not the node: refused for a closed-division power result (use ipmi, "
                               "redfish or command; nvml is for the open division)");
    plan.warnings.push_back("power.source nvml: the GPUs' power only, not node-level: the energy is not an MLPerf power result");
  }
  m.command = cfg.str("power.command");
  if (m.source == power::Source::Command && m.command.empty()) cfg.fail("power.command", "power.source command needs the command that prints watts");
  m.ipmitool = cfg.str("power.ipmi.program");
  m.ipmi_interface = setting(cfg, "power.ipmi.interface", power::kIpmiInterfaceNames);
  m.ipmi_reading = setting(cfg, "power.ipmi.reading", power::kIpmiReadingNames);
  m.ipmi_sensor = cfg.str("power.ipmi.sensor");
  if (m.source == power::Source::Ipmi && m.ipmi_reading == power::IpmiReading::Sensor && m.ipmi_sensor.empty())
    cfg.fail("power.ipmi.sensor", "power.ipmi.reading sensor needs the SDR name of the node's power sensor");
  m.ipmi_cipher_suite = static_cast<int>(cfg.integer("power.ipmi.cipher_suite"));
  m.redfish_chassis = cfg.str("power.redfish.chassis");
  m.redfish_ca_file = cfg.path("power.redfish.ca_file");
  m.redfish_verify_tls = cfg.flag("power.redfish.verify_tls");
  const bool needs_bmc = m.source == power::Source::Redfish || (m.source == power::Source::Ipmi && m.ipmi_interface != power::IpmiInterface::Open);
  m.credentials_file = cfg.path("power.credentials_file");
  if (needs_bmc && !m.credentials_file.empty()) {
    const std::string problem = power::credentials_file_problem(m.credentials_file);
    if (problem.find("no such file") == std::string::npos && !problem.empty()) cfg.fail("power.credentials_file", problem);
    if (!problem.empty()) plan.warnings.push_back("power.credentials_file " + m.credentials_file + " is not on this host; the monitors read it on the nodes");
  }
  std::map<std::string, std::string> bmc;
  for (const auto& [node, addr] : cfg.string_map("power.bmc")) bmc[node] = addr;
  for (const NodePlan& n : plan.nodes) {
    m.hosts.push_back(n.hostname);
    auto it = bmc.find(n.hostname);
    m.bmcs.push_back(it == bmc.end() ? "" : it->second);
    if (needs_bmc && it == bmc.end()) {
      if (hosts_known) cfg.fail("power.bmc", "no BMC address for node " + n.hostname + " (power.bmc: {" + n.hostname + ": host[:port]})");
      plan.warnings.push_back("power.bmc: node names are not known here (" + n.hostname + "); each is matched to its BMC where the set runs");
    }
  }
  p.monitor_config = m.to_json();
  p.monitor_config_file = plan.experiment.output_dir + "/power_monitor.json";
  std::vector<std::string> forward;
  if (needs_bmc && m.credentials_file.empty()) forward = {power::kUsernameEnv, power::kPasswordEnv};
  const std::string monitor = cfg.given("power.monitor") ? cfg.path("power.monitor") : host_tool(bin_dir, "power-monitor");
  p.monitor.argv = joined(launcher.beside_step_prefix(plan.per_node.argv, forward), {monitor, "--config", p.monitor_config_file});
  if (const std::string var = launcher.node_index_variable(); !var.empty()) p.monitor.argv = joined(p.monitor.argv, {"--node-index-env", var});
  p.monitor.env = plan.per_node.env;
  // A short run trains on after run_stop until the window holds the readings MLPerf asks for (and two more).
  p.window_s = (p.min_readings + 2) * p.interval_s;
  if (plan.trainer_run.kind == TrainerKind::External)
    plan.warnings.push_back(fmt::format("power with an external trainer: a run shorter than {:g} s has fewer than {} readings unless "
                                        "the implementation trains on after run_stop itself (NVIDIA's "
                                        "MLPERF_POWER_TRAIN_AFTER_RUN_STOP=1)", p.window_s, p.min_readings));
  p.switches = static_cast<int>(cfg.integer("power.interconnect.switches"));
  p.switch_watts = cfg.real("power.interconnect.rated_watts") * cfg.real("power.interconnect.share");
  if (p.switches > 0 && !cfg.given("power.interconnect.rated_watts"))
    cfg.fail("power.interconnect.rated_watts", "power.interconnect.switches needs each switch's maximum rated power");
}

}  // namespace bert::harness

namespace bert::harness {

std::string power_dry_run_lines(const Plan& plan) {
  const PowerPlan& p = plan.power;
  std::string out;
  if (!p.source.empty()) {
    out += fmt::format("power       {} every {:g} s on every node, {} readings, conversion_eff {:g}{}; at least {} readings a run "
                       "(a shorter run trains on to {:g} s after run_start){}\n",
                       p.source, p.interval_s, enum_name(p.measurement_type, power::kMeasurementTypeNames), p.conversion_eff,
                       p.conversion_eff_given ? "" : " (default, not a documented PSU efficiency)", p.min_readings, p.window_s,
                       p.node_level ? "" : "; GPUs only, not node-level");
    if (p.switches > 0)
      out += fmt::format("            interconnect: {} switch(es) estimated at {:g} W each (rated x share)\n", p.switches, p.switch_watts);
  }
  if (p.gpu_clock_mhz > 0)
    out += fmt::format("gpu clock   locked to {} MHz on every node before the first run, reset after the last\n", p.gpu_clock_mhz);
  return out;
}

std::string power_command_lines(const Plan& plan) {
  const PowerPlan& p = plan.power;
  std::string out;
  if (!p.clock_lock.argv.empty()) out += "  clock lock:   " + p.clock_lock.shell() + "\n";
  if (!p.source.empty())
    out += "  power:        " + p.monitor.shell() + " --out-dir <run's power logs> --stop-file <its stop file>\n";
  if (!p.clock_reset.argv.empty()) out += "  clock reset:  " + p.clock_reset.shell() + "\n";
  return out;
}

}  // namespace bert::harness
