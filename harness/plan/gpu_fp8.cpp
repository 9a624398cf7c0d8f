#include "harness/plan/gpu_fp8.h"

#include <array>
#include <cctype>
#include <string_view>
#include <vector>

namespace bert::harness {
namespace {

struct Model {
  std::string_view token;  // a word of the model name (case-insensitive)
  std::string_view arch;
  bool fp8;
};

// Matched word by word after the word NVIDIA; the first row whose token is a word of the name wins.
constexpr std::array<Model, 30> kModels{{
    {"H100", "sm_90", true},  {"H200", "sm_90", true},   {"H800", "sm_90", true},   {"H20", "sm_90", true},
    {"GH200", "sm_90", true}, {"B100", "sm_100", true},  {"B200", "sm_100", true},  {"GB200", "sm_100", true},
    {"B300", "sm_103", true}, {"GB300", "sm_103", true}, {"L4", "sm_89", true},     {"L40", "sm_89", true},
    {"L40S", "sm_89", true},  {"L20", "sm_89", true},    {"Ada", "sm_89", true},    {"4090", "sm_89", true},
    {"A100", "sm_80", false}, {"A800", "sm_80", false},  {"A30", "sm_80", false},   {"A40", "sm_86", false},
    {"A10", "sm_86", false},  {"A16", "sm_86", false},   {"A6000", "sm_86", false}, {"A5000", "sm_86", false},
    {"3090", "sm_86", false}, {"V100", "sm_70", false},  {"T4", "sm_75", false},    {"P100", "sm_60", false},
    {"P40", "sm_61", false},  {"K80", "sm_37", false},
}};

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::string w;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      w += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    } else if (!w.empty()) {
      out.push_back(w);
      w.clear();
    }
  }
  if (!w.empty()) out.push_back(w);
  return out;
}

std::string upper(std::string_view s) {
  std::string u;
  for (char c : s) u += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

}  // namespace

GpuFp8 gpu_fp8(const std::string& name) {
  GpuFp8 r;
  const std::string shown = name.empty() ? "system.accelerator_model_name (not given)" : name;
  const std::vector<std::string> w = words(name);
  bool nvidia = false;
  for (const std::string& x : w) nvidia = nvidia || x == "NVIDIA";
  if (nvidia)
    for (const Model& m : kModels)
      for (const std::string& x : w)
        if (x == upper(m.token)) {
          r.known = true;
          r.has_fp8 = m.fp8;
          r.arch = m.arch;
          r.why = name + " is " + r.arch + (m.fp8 ? ": FP8 matrix units" : ": no FP8 matrix units");
          return r;
        }
  r.why = shown + " is not an NVIDIA GPU model this harness knows (harness/plan/gpu_fp8.cpp)";
  return r;
}

}  // namespace bert::harness
