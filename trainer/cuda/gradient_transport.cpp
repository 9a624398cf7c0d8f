#include "trainer/cuda/gradient_transport.h"

#include <set>
#include <stdexcept>

namespace bert::cuda {

const char* to_string(GradientTransport t) {
  switch (t) {
    case GradientTransport::none: return "none";
    case GradientTransport::nccl: return "nccl";
    case GradientTransport::host: return "host";
  }
  return "?";
}

GradientTransport choose_gradient_transport(const std::vector<std::string>& device_ids) {
  if (device_ids.size() <= 1) return GradientTransport::none;
  const std::set<std::string> distinct(device_ids.begin(), device_ids.end());
  return distinct.size() == device_ids.size() ? GradientTransport::nccl : GradientTransport::host;
}

std::string device_id_hex(const uint8_t bytes[16]) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 16; ++i) {
    s += digits[bytes[i] >> 4];
    s += digits[bytes[i] & 15];
  }
  return s;
}

std::vector<std::string> device_ids_of(const std::vector<uint8_t>& gathered, int world) {
  if (world < 0 || gathered.size() != static_cast<size_t>(world) * 16)
    throw std::invalid_argument("device ids: " + std::to_string(gathered.size()) + " bytes for " +
                                std::to_string(world) + " ranks");
  std::vector<std::string> ids;
  for (int r = 0; r < world; ++r) ids.push_back(device_id_hex(gathered.data() + static_cast<size_t>(r) * 16));
  return ids;
}

}  // namespace bert::cuda
