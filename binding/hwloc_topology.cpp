#include "binding/hwloc_topology.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "binding/linux_pu_numbering.h"

namespace bert::binding {
namespace {

std::string describe(const TopologySource& src) {
  switch (src.kind) {
    case TopologyKind::Live: return "live topology";
    case TopologyKind::Xml: return "topology file '" + src.value + "'";
    case TopologyKind::Synthetic: return "synthetic topology '" + src.value + "'";
  }
  return "topology";
}

void check_xml_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError("topology.xml", "cannot read topology file '" + path + "': " + std::strerror(errno));
}

// hwloc 3.x writes version="3.0", which hwloc 2.x refuses; say so instead of a bare "invalid".
std::string xml_version_hint(const std::string& path) {
  std::ifstream in(path);
  std::string head(2048, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  const std::string key = "<topology version=\"";
  size_t at = head.find(key);
  if (at == std::string::npos || at + key.size() >= head.size()) return "";
  char major = head[at + key.size()];
  if (major < '3' || major > '9') return "";
  return "; it was written by hwloc " + std::string(1, major) + ".x, and hwloc " + std::to_string(HWLOC_API_VERSION >> 16) +
         ".x reads XML versions up to 2 (re-export it with lstopo from hwloc 2.x)";
}

}  // namespace

HwlocTopology HwlocTopology::load(const TopologySource& src, bool with_io) {
  hwloc_topology_t t = nullptr;
  if (hwloc_topology_init(&t) != 0) throw UserError("topology", "hwloc_topology_init failed");
  HwlocTopology owner(t);
  if (src.kind == TopologyKind::Xml) {
    check_xml_file(src.value);
    if (hwloc_topology_set_xml(t, src.value.c_str()) != 0)
      throw UserError("topology.xml", describe(src) + " is not a valid hwloc topology (hwloc could not parse it)");
  } else if (src.kind == TopologyKind::Synthetic) {
    if (src.value.empty() || hwloc_topology_set_synthetic(t, with_linux_pu_numbering(src.value).c_str()) != 0)
      throw UserError("topology.synthetic",
                         describe(src) + " is not a valid hwloc synthetic description (e.g. 'pack:2 numa:1 core:8 pu:2')");
  }
  if (src.kind == TopologyKind::Live && src.whole_machine)
    hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
  // Without this hwloc 2.x drops every PCI/OS device and no GPU can be found.
  if (with_io) hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (hwloc_topology_load(t) != 0) {
    if (src.kind == TopologyKind::Xml)
      throw UserError("topology.xml", describe(src) + " is not a valid hwloc topology (hwloc could not load it)" +
                                             xml_version_hint(src.value));
    throw UserError("topology", describe(src) + " could not be loaded by hwloc");
  }
  if (hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU) <= 0)
    throw UserError("topology", describe(src) + " has no processing units");
  return owner;
}

HwlocTopology::~HwlocTopology() {
  if (topo_) hwloc_topology_destroy(topo_);
}

std::vector<int> bitmap_to_list(hwloc_const_bitmap_t set) {
  std::vector<int> out;
  if (!set) return out;
  unsigned i;
  hwloc_bitmap_foreach_begin(i, set) { out.push_back(static_cast<int>(i)); }
  hwloc_bitmap_foreach_end();
  return out;
}

}  // namespace bert::binding
