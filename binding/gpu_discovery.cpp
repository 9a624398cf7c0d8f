#include "binding/gpu_discovery.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "binding/gpu_vendors.h"
#include "binding/pci_locality.h"

namespace bert::binding {
namespace {

unsigned class_base(hwloc_obj_t pcidev) { return pcidev->attr->pcidev.class_id >> 8; }
unsigned class_sub(hwloc_obj_t pcidev) { return pcidev->attr->pcidev.class_id & 0xff; }

const GpuPciMatch* gpu_match(hwloc_obj_t pcidev) {
  for (const auto& m : kGpuPciMatches)
    if (m.pci_vendor_id == pcidev->attr->pcidev.vendor_id && m.class_base == class_base(pcidev) &&
        (m.class_sub == kAnySubclass || m.class_sub == class_sub(pcidev)))
      return &m;
  return nullptr;
}

std::string hex4(unsigned v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04x", v & 0xffff);
  return buf;
}

// A device worth reporting when it is not a GPU: display/accelerator class, or a GPU/co-processor osdev.
bool looks_like_gpu(hwloc_obj_t pcidev) {
  for (unsigned base : kGpuLikeClassBases)
    if (class_base(pcidev) == base) return true;
  for (hwloc_obj_t os : osdevs_of(pcidev)) {
    auto type = os->attr->osdev.type;
    if (type == HWLOC_OBJ_OSDEV_GPU || type == HWLOC_OBJ_OSDEV_COPROC) return true;
  }
  return false;
}

// "0380" for one subclass, "03xx" for any.
std::string class_pattern(const GpuPciMatch& m) {
  return hex4(m.class_base).substr(2) + (m.class_sub == kAnySubclass ? "xx" : hex4(m.class_sub).substr(2));
}

std::string skip_reason(hwloc_obj_t pcidev) {
  const unsigned vendor = pcidev->attr->pcidev.vendor_id;
  std::string name, classes;
  for (const auto& m : kGpuPciMatches)
    if (m.pci_vendor_id == vendor) {
      name = m.vendor;
      classes += (classes.empty() ? "" : ", ") + class_pattern(m);
    }
  if (name.empty()) return "PCI vendor " + hex4(vendor) + " is not a GPU vendor";
  return "class " + hex4(pcidev->attr->pcidev.class_id) + " is not one of " + name + "'s compute GPU classes (" + classes + ")";
}

}  // namespace

GpuDiscovery find_gpus(const HwlocTopology& topo) {
  hwloc_topology_t t = topo.get();
  std::vector<hwloc_obj_t> devices;
  for (hwloc_obj_t dev = hwloc_get_next_pcidev(t, nullptr); dev; dev = hwloc_get_next_pcidev(t, dev)) devices.push_back(dev);
  auto key = [](hwloc_obj_t d) {
    const auto& p = d->attr->pcidev;
    return std::make_tuple(p.domain, p.bus, p.dev, p.func);
  };
  std::sort(devices.begin(), devices.end(), [&](hwloc_obj_t a, hwloc_obj_t b) { return key(a) < key(b); });

  GpuDiscovery out;
  out.has_pci = !devices.empty();
  for (hwloc_obj_t dev : devices) {
    const GpuPciMatch* match = gpu_match(dev);
    if (!match) {
      if (!looks_like_gpu(dev)) continue;
      SkippedDevice s;
      s.pci_busid = pci_busid_of(dev);
      s.pci_id = hex4(dev->attr->pcidev.vendor_id) + ":" + hex4(dev->attr->pcidev.device_id);
      s.pci_class = hex4(dev->attr->pcidev.class_id);
      for (hwloc_obj_t os : osdevs_of(dev)) s.osdevs.emplace_back(os->name);
      s.reason = skip_reason(dev);
      out.skipped.push_back(std::move(s));
      continue;
    }
    Gpu g;
    g.index = static_cast<int>(out.gpus.size());
    g.pci_busid = pci_busid_of(dev);
    g.numa_node = local_numa_of(t, dev);
    g.pci_path = pci_path_of(dev);
    g.vendor = std::string(match->vendor);
    for (hwloc_obj_t os : osdevs_of(dev)) {
      g.osdevs.emplace_back(os->name);
      if (const char* model = hwloc_obj_get_info_by_name(os, "GPUModel"); model && g.model.empty()) g.model = model;
    }
    out.gpus.push_back(std::move(g));
  }
  return out;
}

std::string skipped_devices_note(const NodeTopology& t) {
  if (t.skipped_devices.empty()) return "";
  // one entry per kind of device: "8 x [1002:66a1] class 0380 (0000:03:00.0, ...): reason"
  struct Group {
    const SkippedDevice* kind;
    std::string buses;
    int count;
  };
  std::vector<Group> groups;
  for (const auto& s : t.skipped_devices) {
    auto same = [&](const Group& g) {
      return g.kind->pci_id == s.pci_id && g.kind->pci_class == s.pci_class && g.kind->reason == s.reason;
    };
    auto it = std::find_if(groups.begin(), groups.end(), same);
    if (it == groups.end()) it = groups.insert(groups.end(), Group{&s, "", 0});
    it->buses += (it->count++ ? ", " : "") + s.pci_busid;
  }
  std::string out = "; not counted as GPUs: ";
  for (size_t i = 0; i < groups.size(); ++i) {
    const Group& g = groups[i];
    out += (i ? "; " : "") + std::to_string(g.count) + " x [" + g.kind->pci_id + "] class " + g.kind->pci_class + " (" +
           g.buses + "): " + g.kind->reason;
  }
  return out;
}

}  // namespace bert::binding
