#include "power/reader.h"

#include <cmath>
#include <regex>
#include <stdexcept>

namespace bert::power {

std::optional<double> first_number(const std::string& text) {
  static const std::regex number(R"([-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)");
  std::smatch m;
  if (!std::regex_search(text, m, number)) return std::nullopt;
  const double v = std::stod(m.str());
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

std::unique_ptr<Reader> make_reader(const MonitorConfig& cfg, int node) {
  auto bmc = [&]() -> std::string {
    if (node < 0 || static_cast<size_t>(node) >= cfg.bmcs.size() || cfg.bmcs[static_cast<size_t>(node)].empty())
      throw std::runtime_error("no BMC address for node " + std::to_string(node) +
                               (static_cast<size_t>(node) < cfg.hosts.size() ? " (" + cfg.hosts[static_cast<size_t>(node)] + ")" : "") +
                               " (power.bmc)");
    return cfg.bmcs[static_cast<size_t>(node)];
  };
  switch (cfg.source) {
    case Source::Command: return make_command_reader(cfg);
    case Source::Ipmi: return make_ipmi_reader(cfg, cfg.ipmi_interface == IpmiInterface::Open ? std::string() : bmc());
    case Source::Redfish: return make_redfish_reader(cfg, bmc());
    case Source::Nvml: return make_nvml_reader();
  }
  throw std::runtime_error("unknown power source");
}

}  // namespace bert::power
