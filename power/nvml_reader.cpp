// source nvml: the sum of the node's GPUs' power (NVML's nvmlDeviceGetPowerUsage, milliwatts), from the
// driver's libnvidia-ml.so.1 loaded at run time (nodes without it get an error, not a missing symbol).
// Not node-level power: fine for an open-division look at energy, refused for a closed power result
// (harness/plan/power_plan.cpp).
#include <dlfcn.h>

#include <stdexcept>
#include <string>

#include "power/reader.h"

namespace bert::power {
namespace {

// The few NVML entry points used (nvml.h's signatures; NVML_SUCCESS is 0).
using NvmlDevice = void*;
using InitFn = int (*)();
using CountFn = int (*)(unsigned*);
using HandleFn = int (*)(unsigned, NvmlDevice*);
using PowerFn = int (*)(NvmlDevice, unsigned*);
using ErrorFn = const char* (*)(int);

class NvmlReader final : public Reader {
 public:
  NvmlReader() {
    lib_ = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) throw std::runtime_error(std::string("power.source nvml: cannot load NVML (libnvidia-ml.so.1): ") + ::dlerror());
    auto sym = [&](const char* name) {
      void* f = ::dlsym(lib_, name);
      if (!f) throw std::runtime_error(std::string("power.source nvml: NVML has no ") + name);
      return f;
    };
    init_ = reinterpret_cast<InitFn>(sym("nvmlInit_v2"));
    count_ = reinterpret_cast<CountFn>(sym("nvmlDeviceGetCount_v2"));
    handle_ = reinterpret_cast<HandleFn>(sym("nvmlDeviceGetHandleByIndex_v2"));
    power_ = reinterpret_cast<PowerFn>(sym("nvmlDeviceGetPowerUsage"));
    error_ = reinterpret_cast<ErrorFn>(sym("nvmlErrorString"));
    if (const int rc = init_(); rc != 0) throw std::runtime_error(std::string("power.source nvml: nvmlInit: ") + error_(rc));
  }
  ~NvmlReader() override {
    if (lib_) ::dlclose(lib_);
  }
  bool node_level() const override { return false; }
  Reading read() override {
    unsigned n = 0;
    if (const int rc = count_(&n); rc != 0) return {std::nullopt, std::string("nvmlDeviceGetCount: ") + error_(rc)};
    double watts = 0;
    for (unsigned i = 0; i < n; ++i) {
      NvmlDevice d = nullptr;
      unsigned mw = 0;
      if (const int rc = handle_(i, &d); rc != 0) return {std::nullopt, "GPU " + std::to_string(i) + ": " + error_(rc)};
      if (const int rc = power_(d, &mw); rc != 0) return {std::nullopt, "GPU " + std::to_string(i) + " power: " + error_(rc)};
      watts += mw / 1000.0;
    }
    if (n == 0) return {std::nullopt, "NVML sees no GPU"};
    return {watts, ""};
  }

 private:
  void* lib_ = nullptr;
  InitFn init_ = nullptr;
  CountFn count_ = nullptr;
  HandleFn handle_ = nullptr;
  PowerFn power_ = nullptr;
  ErrorFn error_ = nullptr;
};

}  // namespace

std::unique_ptr<Reader> make_nvml_reader() { return std::make_unique<NvmlReader>(); }

}  // namespace bert::power
