// apply_binding: binds the calling process (CPU + memory) before it execs the rank's command.
#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "binding/allowed_cpus.h"
#include "binding/binding.h"
#include "binding/cpu_list.h"
#include "binding/hwloc_topology.h"

namespace bert::binding {
namespace {

struct Bitmap {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  explicit Bitmap(const IndexList& list) {
    for (int i : list) hwloc_bitmap_set(set, static_cast<unsigned>(i));
  }
  ~Bitmap() { hwloc_bitmap_free(set); }
  Bitmap(const Bitmap&) = delete;
  Bitmap& operator=(const Bitmap&) = delete;
};

void bind_cpus(const HwlocTopology& topo, const std::string& text) {
  IndexList cpus = parse_list(text, "bind");
  IndexList allowed = process_allowed_cpus();
  // Same check numactl makes (against Cpus_allowed), with the allowed list in the message.
  if (int bad = first_outside(cpus, allowed); bad >= 0)
    throw UserError("bind", "<" + text + "> is invalid: " + out_of_range_message("cpu", bad, allowed));
  Bitmap set(cpus);
  if (hwloc_set_cpubind(topo.get(), set.set, HWLOC_CPUBIND_PROCESS) != 0)
    throw UserError("bind", "binding to CPUs " + text + " failed: " + std::strerror(errno) +
                                   " (allowed: " + format_list(allowed) + ")");
}

void bind_mems(const HwlocTopology& topo, const std::string& text) {
  IndexList nodes = parse_list(text, "bind");
  IndexList present;
  hwloc_obj_t node = nullptr;
  while ((node = hwloc_get_next_obj_by_type(topo.get(), HWLOC_OBJ_NUMANODE, node)) != nullptr)
    present.push_back(static_cast<int>(node->os_index));
  std::sort(present.begin(), present.end());
  if (int bad = first_outside(nodes, present); bad >= 0)
    throw UserError("bind", "<" + text + "> is invalid: " + out_of_range_message("node", bad, present));
  Bitmap set(nodes);
  // HWLOC_MEMBIND_PROCESS is ENOSYS on Linux; the thread policy is inherited across fork/exec.
  int flags = HWLOC_MEMBIND_THREAD | HWLOC_MEMBIND_BYNODESET | HWLOC_MEMBIND_STRICT;
  if (hwloc_set_membind(topo.get(), set.set, HWLOC_MEMBIND_BIND, flags) != 0)
    throw UserError("bind", "binding memory to NUMA nodes " + text + " failed: " + std::strerror(errno));
}

}  // namespace

void apply_binding(const RankBinding& b) {
  if (b.cpus.empty() && b.mems.empty()) return;
  HwlocTopology topo = HwlocTopology::load(TopologySource{}, /*with_io=*/false);
  if (!topo.is_this_system()) throw UserError("bind", "hwloc did not load this system's topology; nothing bound");
  if (!b.cpus.empty()) bind_cpus(topo, b.cpus);
  if (!b.mems.empty()) bind_mems(topo, b.mems);
}

}  // namespace bert::binding
