// Which PCI devices are GPUs: a vendor and the PCI classes its compute GPUs use. Data, not logic: add a
// row to support another accelerator vendor. Devices are always told apart by PCI bus id, never by the
// runtime's index (cudaN, rsmiN, opencl0dN, ze0...: those numbers need not follow bus order).
#pragma once
#include <array>
#include <string_view>

namespace bert::binding {

inline constexpr unsigned kAnySubclass = 0x100;

struct GpuPciMatch {
  unsigned pci_vendor_id;
  unsigned class_base;  // high byte of the PCI class: 0x03 display, 0x12 processing accelerator
  unsigned class_sub;   // low byte, or kAnySubclass
  std::string_view vendor;
};

inline constexpr std::array<GpuPciMatch, 5> kGpuPciMatches{{
    {0x10de, 0x03, kAnySubclass, "NVIDIA"},    // 3D controller 0302 (data center), VGA 0300 (workstation)
    {0x1e3e, 0x03, kAnySubclass, "Iluvatar"},  // Iluvatar CoreX
    {0x1002, 0x03, kAnySubclass, "AMD"},       // Instinct MI50/MI100: display controller 0380
    {0x1002, 0x12, 0x00, "AMD"},               // Instinct MI210/MI300X: processing accelerator 1200
    {0x8086, 0x03, 0x80, "Intel"},             // Data Center GPU Max/Flex: 0380 (VGA 0300 = integrated graphics)
}};

// PCI classes worth a line when a device of that class is not a GPU (a BMC's VGA, integrated graphics, an
// accelerator of a vendor not listed above): display controllers and processing accelerators.
inline constexpr std::array<unsigned, 2> kGpuLikeClassBases{{0x03, 0x12}};

}  // namespace bert::binding
