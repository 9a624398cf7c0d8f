// source ipmi: ipmitool, in-band (-I open) or over the LAN to the node's BMC (-I lanplus -H host -p port
// -U user -E: the password in ipmitool's environment, never on its command line). Two ways a BMC gives
// node power: DCMI Get Power Reading ("Instantaneous power reading: 512 Watts"), or an SDR power sensor
// by name (`sensor reading NAME`: "NAME | 512"), for BMCs that do not answer DCMI (OpenIPMI's ipmi_sim).
#include <regex>
#include <stdexcept>

#include "power/credentials.h"
#include "power/reader.h"
#include "power/run_command.h"

namespace bert::power {
namespace {

class IpmiReader final : public Reader {
 public:
  IpmiReader(const MonitorConfig& c, const std::string& bmc) : cfg_(c), timeout_(read_timeout_s(c)) {
    argv_ = {c.ipmitool, "-I", enum_name(c.ipmi_interface, kIpmiInterfaceNames)};
    if (c.ipmi_interface != IpmiInterface::Open) {
      const Credentials cred = load_credentials(c.credentials_file);
      std::string host = bmc, port;
      if (const size_t colon = bmc.rfind(':'); colon != std::string::npos && bmc.find(':') == colon) {
        host = bmc.substr(0, colon);
        port = bmc.substr(colon + 1);
      }
      argv_.insert(argv_.end(), {"-H", host});
      if (!port.empty()) argv_.insert(argv_.end(), {"-p", port});
      argv_.insert(argv_.end(), {"-U", cred.username, "-E", "-N", "1", "-R", "1"});
      if (c.ipmi_interface == IpmiInterface::Lanplus && c.ipmi_cipher_suite >= 0) argv_.insert(argv_.end(), {"-C", std::to_string(c.ipmi_cipher_suite)});
      env_["IPMI_PASSWORD"] = cred.password;
      where_ = "BMC " + bmc;
    } else {
      where_ = "the local BMC (in-band)";
    }
    if (c.ipmi_reading == IpmiReading::Dcmi) argv_.insert(argv_.end(), {"dcmi", "power", "reading"});
    else argv_.insert(argv_.end(), {"sensor", "reading", c.ipmi_sensor});
  }

  Reading read() override {
    const CommandResult r = run_command(argv_, timeout_, env_);
    const std::string what = cfg_.ipmi_reading == IpmiReading::Dcmi ? "dcmi power reading" : "sensor reading '" + cfg_.ipmi_sensor + "'";
    if (!r.ok()) return {std::nullopt, "ipmitool " + what + " from " + where_ + ": " + r.describe() + first_line(r.output)};
    std::smatch m;
    if (cfg_.ipmi_reading == IpmiReading::Dcmi) {
      static const std::regex dcmi(R"(Instantaneous power reading:\s*([0-9.]+)\s*Watts)");
      if (std::regex_search(r.output, m, dcmi)) return {std::stod(m[1]), ""};
    } else {
      const size_t bar = r.output.find('|');
      if (bar != std::string::npos)
        if (const auto w = first_number(r.output.substr(bar + 1)); w && *w >= 0) return {w, ""};
    }
    return {std::nullopt, "ipmitool " + what + " from " + where_ + ": no watts in its answer" + first_line(r.output)};
  }

 private:
  static std::string first_line(const std::string& out) {
    std::string s = out.substr(0, out.find('\n'));
    return s.empty() ? "" : ": " + s.substr(0, 200);
  }
  MonitorConfig cfg_;
  double timeout_;
  std::vector<std::string> argv_;
  std::map<std::string, std::string> env_;
  std::string where_;
};

}  // namespace

std::unique_ptr<Reader> make_ipmi_reader(const MonitorConfig& cfg, const std::string& bmc) {
  if (cfg.ipmi_reading == IpmiReading::Sensor && cfg.ipmi_sensor.empty())
    throw std::runtime_error("power.ipmi.reading sensor needs power.ipmi.sensor (the SDR name, e.g. 'Pwr Consumption')");
  return std::make_unique<IpmiReader>(cfg, bmc);
}

}  // namespace bert::power
