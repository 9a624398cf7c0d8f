// Owning handle of an hwloc topology loaded from a TopologySource (live, XML or synthetic).
#pragma once
#include <hwloc.h>

#include "binding/binding.h"

namespace bert::binding {

class HwlocTopology {
 public:
  // Load order: init -> set_xml/set_synthetic -> I/O filter KEEP_IMPORTANT -> load. Without
  // `with_io` PCI/OS devices are skipped (binding needs none, and a live I/O scan may wake GPU drivers).
  // Throws UserError("topology", ...) for a missing/invalid XML or a bad synthetic string.
  static HwlocTopology load(const TopologySource& src, bool with_io = true);

  HwlocTopology(HwlocTopology&& other) noexcept : topo_(other.topo_) { other.topo_ = nullptr; }
  HwlocTopology(const HwlocTopology&) = delete;
  HwlocTopology& operator=(const HwlocTopology&) = delete;
  HwlocTopology& operator=(HwlocTopology&&) = delete;
  ~HwlocTopology();

  hwloc_topology_t get() const { return topo_; }
  bool is_this_system() const { return hwloc_topology_is_thissystem(topo_) != 0; }

 private:
  explicit HwlocTopology(hwloc_topology_t t) : topo_(t) {}
  hwloc_topology_t topo_ = nullptr;
};

// hwloc bitmap -> sorted index list.
std::vector<int> bitmap_to_list(hwloc_const_bitmap_t set);

}  // namespace bert::binding
