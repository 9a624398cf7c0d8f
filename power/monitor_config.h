// What one node's power monitor does: where its readings come from, how often, what the readings
// are (AC with a conversion efficiency, or DC), and each node's name and BMC. The harness writes it
// (harness/plan/power_plan.cpp, from the system YAML's power: keys) as JSON; `power-monitor --config`
// reads it. Secrets are never in it: a BMC's credentials come from credentials_file or the
// environment on the node (credentials.h).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/enum_names.h"

namespace bert::power {

using json = nlohmann::ordered_json;

// power.source: what gives a node's power.
enum class Source { Ipmi, Redfish, Command, Nvml };
inline constexpr EnumNames<Source, 4> kSourceNames{
    {{Source::Ipmi, "ipmi"}, {Source::Redfish, "redfish"}, {Source::Command, "command"}, {Source::Nvml, "nvml"}}};

// power.ipmi.reading: DCMI Get Power Reading, or an SDR power sensor by name.
enum class IpmiReading { Dcmi, Sensor };
inline constexpr EnumNames<IpmiReading, 2> kIpmiReadingNames{{{IpmiReading::Dcmi, "dcmi"}, {IpmiReading::Sensor, "sensor"}}};

// power.measurement_type: where the readings are taken: AC (the PSU's input, or the PDU) or DC (after the PSU).
enum class MeasurementType { AC, DC };
inline constexpr EnumNames<MeasurementType, 2> kMeasurementTypeNames{{{MeasurementType::AC, "AC"}, {MeasurementType::DC, "DC"}}};

// power.ipmi.interface: ipmitool -I: IPMI 2.0 or 1.5 over the LAN to the node's BMC, or in-band.
enum class IpmiInterface { Lanplus, Lan, Open };
inline constexpr EnumNames<IpmiInterface, 3> kIpmiInterfaceNames{
    {{IpmiInterface::Lanplus, "lanplus"}, {IpmiInterface::Lan, "lan"}, {IpmiInterface::Open, "open"}}};

void to_json(json& j, MeasurementType v);
void from_json(const json& j, MeasurementType& v);

struct MonitorConfig {
  Source source = Source::Command;
  double interval_s = 1.0;            // one reading every interval_s (MLPerf: at most 1 s)
  MeasurementType measurement_type = MeasurementType::AC;
  double conversion_eff = 1.0;        // AC: the PSU's AC/DC conversion efficiency; DC: 1
  std::string command;                // source command: `sh -c` prints watts
  // source ipmi: ipmitool, in-band (interface open) or over the LAN to the node's BMC
  std::string ipmitool = "ipmitool";
  IpmiInterface ipmi_interface = IpmiInterface::Lanplus;
  IpmiReading ipmi_reading = IpmiReading::Dcmi;
  std::string ipmi_sensor;            // ipmi_reading sensor: its SDR name ("Pwr Consumption")
  int ipmi_cipher_suite = -1;         // lanplus -C (-1 = ipmitool's default)
  // source redfish: the chassis Power resource of the node's BMC
  std::string redfish_chassis;        // chassis Id ("" = the first one with a Power resource)
  std::string redfish_ca_file;        // CA bundle for the BMC's certificate ("" = the system's)
  bool redfish_verify_tls = true;
  // ipmi over the LAN, redfish
  std::string credentials_file;       // YAML {username, password}; "" = $BMC_USERNAME / $BMC_PASSWORD
  // per node, in the set's node order (node_<k>.txt)
  std::vector<std::string> hosts;     // the node's name (each reading's metadata host)
  std::vector<std::string> bmcs;      // its BMC, host or host:port ("" = none)

  json to_json() const;
  static MonitorConfig from_json(const json& j);  // throws std::exception for a missing or mistyped field
};

// The seconds a reading may take before it counts as failed (a BMC that stops answering).
double read_timeout_s(const MonitorConfig& c);

}  // namespace bert::power
