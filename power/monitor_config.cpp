#include "power/monitor_config.h"

#include <algorithm>

#include "common/json_fields.h"

namespace bert::power {

BERT_JSON_ENUM(json, Source, kSourceNames)
BERT_JSON_ENUM(json, IpmiReading, kIpmiReadingNames)
BERT_JSON_ENUM(json, IpmiInterface, kIpmiInterfaceNames)
BERT_JSON_ENUM(json, MeasurementType, kMeasurementTypeNames)

namespace {
constexpr auto kFields = std::make_tuple(
    field("source", &MonitorConfig::source), field("interval_s", &MonitorConfig::interval_s),
    field("measurement_type", &MonitorConfig::measurement_type), field("conversion_eff", &MonitorConfig::conversion_eff),
    field("command", &MonitorConfig::command), field("ipmitool", &MonitorConfig::ipmitool),
    field("ipmi_interface", &MonitorConfig::ipmi_interface), field("ipmi_reading", &MonitorConfig::ipmi_reading),
    field("ipmi_sensor", &MonitorConfig::ipmi_sensor), field("ipmi_cipher_suite", &MonitorConfig::ipmi_cipher_suite),
    field("redfish_chassis", &MonitorConfig::redfish_chassis), field("redfish_ca_file", &MonitorConfig::redfish_ca_file),
    field("redfish_verify_tls", &MonitorConfig::redfish_verify_tls),
    field("credentials_file", &MonitorConfig::credentials_file), field("hosts", &MonitorConfig::hosts),
    field("bmcs", &MonitorConfig::bmcs));
}  // namespace

json MonitorConfig::to_json() const { return fields_to_json<json>(*this, kFields); }
MonitorConfig MonitorConfig::from_json(const json& j) { return fields_from_json<MonitorConfig>(j, kFields); }

double read_timeout_s(const MonitorConfig& c) { return std::max(2 * c.interval_s, 2.0); }

}  // namespace bert::power
