// source redfish: the node's BMC over HTTPS (libcurl, basic authentication from the credentials, never
// a command line): /redfish/v1/Chassis, the chassis (power.redfish.chassis, else the first that links a
// Power resource), its Power resource (DMTF Power schema), PowerControl[0].PowerConsumedWatts.
#include <curl/curl.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "power/credentials.h"
#include "power/reader.h"

namespace bert::power {
namespace {

size_t collect(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

class RedfishReader final : public Reader {
 public:
  RedfishReader(const MonitorConfig& c, const std::string& bmc) : cfg_(c), base_("https://" + bmc) {
    cred_ = load_credentials(c.credentials_file);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    curl_ = curl_easy_init();
    if (!curl_) throw std::runtime_error("libcurl: cannot make a handle");
  }
  ~RedfishReader() override {
    if (curl_) curl_easy_cleanup(curl_);
  }

  Reading read() override {
    try {
      if (power_path_.empty()) power_path_ = find_power_resource();
      const nlohmann::json power = get(power_path_);
      const auto& controls = power.at("PowerControl");
      if (!controls.is_array() || controls.empty()) return {std::nullopt, base_ + power_path_ + ": no PowerControl"};
      const auto& watts = controls.at(0).at("PowerConsumedWatts");
      if (!watts.is_number()) return {std::nullopt, base_ + power_path_ + ": PowerConsumedWatts is " + watts.dump()};
      return {watts.get<double>(), ""};
    } catch (const std::exception& e) {
      power_path_.clear();  // look again next time (a BMC that came back, a chassis that moved)
      return {std::nullopt, e.what()};
    }
  }

 private:
  nlohmann::json get(const std::string& path) {
    std::string body;
    const std::string url = base_ + path;
    curl_easy_reset(curl_);
    curl_easy_setopt(curl_, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl_, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    curl_easy_setopt(curl_, CURLOPT_USERNAME, cred_.username.c_str());
    curl_easy_setopt(curl_, CURLOPT_PASSWORD, cred_.password.c_str());
    curl_easy_setopt(curl_, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(curl_, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(curl_, CURLOPT_TIMEOUT_MS, static_cast<long>(read_timeout_s(cfg_) * 1000));
    curl_easy_setopt(curl_, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl_, CURLOPT_PROTOCOLS_STR, "https");
    if (!cfg_.redfish_ca_file.empty()) curl_easy_setopt(curl_, CURLOPT_CAINFO, cfg_.redfish_ca_file.c_str());
    if (!cfg_.redfish_verify_tls) {
      curl_easy_setopt(curl_, CURLOPT_SSL_VERIFYPEER, 0L);
      curl_easy_setopt(curl_, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    const CURLcode rc = curl_easy_perform(curl_);
    if (rc != CURLE_OK) throw std::runtime_error("GET " + url + ": " + curl_easy_strerror(rc));
    long status = 0;
    curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &status);
    if (status != 200) throw std::runtime_error("GET " + url + ": HTTP " + std::to_string(status));
    nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw std::runtime_error("GET " + url + ": not a JSON object");
    return j;
  }

  std::string find_power_resource() {
    const nlohmann::json chassis = get("/redfish/v1/Chassis");
    for (const auto& m : chassis.at("Members")) {
      const std::string path = m.at("@odata.id").get<std::string>();
      const nlohmann::json c = get(path);
      if (!cfg_.redfish_chassis.empty() && c.value("Id", "") != cfg_.redfish_chassis) continue;
      if (c.contains("Power") && c["Power"].contains("@odata.id")) return c["Power"]["@odata.id"].get<std::string>();
    }
    throw std::runtime_error(base_ + "/redfish/v1/Chassis: no chassis" +
                             (cfg_.redfish_chassis.empty() ? "" : " with Id '" + cfg_.redfish_chassis + "'") +
                             " links a Power resource");
  }

  MonitorConfig cfg_;
  std::string base_;
  Credentials cred_;
  CURL* curl_ = nullptr;
  std::string power_path_;
};

}  // namespace

std::unique_ptr<Reader> make_redfish_reader(const MonitorConfig& cfg, const std::string& bmc) {
  return std::make_unique<RedfishReader>(cfg, bmc);
}

}  // namespace bert::power
