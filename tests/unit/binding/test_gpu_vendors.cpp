// GPUs of every vendor in gpu_vendors.h, found by PCI vendor + class and named through their PCI device;
// devices that look like GPUs but are not counted are reported with the reason.
#include <doctest/doctest.h>

#include "fixtures.h"

using namespace bert::binding;
using namespace bert::binding::test;

TEST_CASE("Corona (real): 8 AMD MI50 found by PCI vendor 1002, rsmi/opencl names attached by bus id, not by number") {
  NodeTopology t = load_xml(fixture("mpibind-epyc-corona-p2.xml"));
  REQUIRE(t.gpus.size() == 8);
  std::vector<std::string> buses;
  for (const auto& g : t.gpus) {
    CHECK(g.vendor == "AMD");
    CHECK(!g.model.empty());
    buses.push_back(g.pci_busid);
  }
  CHECK(buses == std::vector<std::string>{"0000:03:00.0", "0000:27:00.0", "0000:43:00.0", "0000:63:00.0",
                                          "0000:83:00.0", "0000:a3:00.0", "0000:c3:00.0", "0000:e3:00.0"});
  CHECK(gpu_numas(t) == std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1});
  // ROCm's numbering is not bus order: the first GPU on the bus is rsmi2, rsmi0 is the fourth
  CHECK(t.gpus[0].osdevs == std::vector<std::string>{"opencl0d2", "rsmi2"});
  CHECK(t.gpus[3].osdevs == std::vector<std::string>{"opencl0d0", "rsmi0"});
  CHECK(t.gpus[7].osdevs == std::vector<std::string>{"opencl0d4", "rsmi4"});
  // the BMC's VGA is reported, not counted
  REQUIRE(t.skipped_devices.size() == 1);
  CHECK(t.skipped_devices[0].pci_busid == "0000:65:00.0");
  CHECK(t.skipped_devices[0].pci_id == "1a03:2000");
  CHECK(t.skipped_devices[0].pci_class == "0300");
  CHECK(t.skipped_devices[0].reason == "PCI vendor 1a03 is not a GPU vendor");
  CHECK(t.has_pci);
  auto ranks = plan_node(t, policy(CpuPolicy::Exclusive), 8);
  CHECK(cpus_of(ranks) == std::vector<std::string>{"0-5,48-53", "6-11,54-59", "12-17,60-65", "18-23,66-71",
                                                   "24-29,72-77", "30-35,78-83", "36-41,84-89", "42-47,90-95"});
  CHECK(ranks[3].gpu_busid == "0000:63:00.0");
}

TEST_CASE("Intel data-center GPU and AMD MI300X are GPUs; integrated graphics and a Gaudi are skipped with the reason") {
  NodeTopology t = load_xml(fixture("handmade-gpu-vendors.xml"));
  REQUIRE(t.gpus.size() == 2);
  CHECK(t.gpus[0].vendor == "Intel");
  CHECK(t.gpus[0].pci_busid == "0000:29:00.0");
  CHECK(t.gpus[0].osdevs == std::vector<std::string>{"ze0", "opencl0d0"});
  CHECK(t.gpus[0].model == "Intel(R) Data Center GPU Max 1550");
  CHECK(t.gpus[1].vendor == "AMD");
  CHECK(t.gpus[1].pci_busid == "0000:85:00.0");
  CHECK(gpu_numas(t) == std::vector<int>{0, 1});
  REQUIRE(t.skipped_devices.size() == 2);
  CHECK(t.skipped_devices[0].pci_id == "8086:4680");
  CHECK(t.skipped_devices[0].osdevs == std::vector<std::string>{"card0"});
  CHECK(t.skipped_devices[0].reason == "class 0300 is not one of Intel's compute GPU classes (0380)");
  CHECK(t.skipped_devices[1].pci_id == "1da3:1020");
  CHECK(t.skipped_devices[1].reason == "PCI vendor 1da3 is not a GPU vendor");
  // asking for more GPU ranks than GPUs says what was not counted
  auto [field, msg] = binding_error([&] { plan_node(t, policy(CpuPolicy::Exclusive), 3); });
  CHECK(field == "binding.unit");
  CHECK(msg == "3 local ranks requested but " + fixture("handmade-gpu-vendors.xml") +
                   " has 2 GPUs; not counted as GPUs: 1 x [8086:4680] class 0300 (0000:00:00.0): class 0300 is not one "
                   "of Intel's compute GPU classes (0380); 1 x [1da3:1020] class 1200 (0000:9a:00.0): PCI vendor 1da3 is "
                   "not a GPU vendor");
}

TEST_CASE("a gpu_numa_map longer than the GPUs found is an error, also when PCI shows no GPU at all") {
  // a CPU node: its PCI devices are known (a BMC VGA), so the map cannot invent 8 GPUs
  auto [field, msg] = binding_error([&] { load_xml(shipped("xeon_2s.xml"), "", {0, 0, 0, 0, 1, 1, 1, 1}); });
  CHECK(field == "topology.gpu_numa_map");
  CHECK(msg == "has 8 entries but " + shipped("xeon_2s.xml") +
                   " has no GPU (a topology that lists its PCI devices defines its GPUs; the map cannot add any); not "
                   "counted as GPUs: 1 x [1a03:2000] class 0300 (0000:03:00.0): PCI vendor 1a03 is not a GPU vendor");
  // the AMD node has 8: a 9th entry is refused, 8 agreeing entries are fine
  auto [f9, m9] = binding_error([&] { load_xml(fixture("mpibind-epyc-corona-p2.xml"), "", {0, 0, 0, 0, 1, 1, 1, 1, 1}); });
  CHECK(f9 == "topology.gpu_numa_map");
  CHECK(m9.find("has 9 entries but") == 0);
  CHECK(m9.find("has only 8 GPUs") != std::string::npos);
  CHECK(load_xml(fixture("mpibind-epyc-corona-p2.xml"), "", {0, 0, 0, 0, 1, 1, 1, 1}).gpus.size() == 8);
  // a synthetic topology has no PCI devices: there the map defines the GPUs
  CHECK(load_synthetic("pack:2 numa:1 core:4 pu:1", {0, 1}).gpus.size() == 2);
}
