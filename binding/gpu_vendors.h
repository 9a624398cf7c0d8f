// PCI vendors whose display/3D controllers (class 0x03xx) count as GPUs. Data, not logic:
// add a row to support another accelerator vendor.
#pragma once
#include <array>
#include <string_view>

namespace bert::binding {

struct GpuVendor {
  unsigned pci_vendor_id;
  std::string_view name;
};

inline constexpr std::array<GpuVendor, 2> kGpuVendors{{
    {0x10de, "NVIDIA"},
    {0x1e3e, "Iluvatar"},  // Iluvatar CoreX
}};

inline constexpr unsigned kPciClassDisplay = 0x03;  // high byte of the PCI class: VGA, 3D, ...

}  // namespace bert::binding
