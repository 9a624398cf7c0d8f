#!/usr/bin/env python3
"""Regenerates the hwloc XML topologies of the systems we ship (outputs are committed).

The CPU side of each machine is an hwloc synthetic description exported to XML by Debian's
`lstopo-no-graphics` (hwloc 2.x); the PCI side (GPUs, NVSwitches, BMC VGA) is then inserted as
host bridge -> PCIDev -> OSDev objects under the Package/Group that holds the device's NUMA node,
the way a real lstopo export nests them, so hwloc reports their locality from the tree.

Usage: systems/topologies/make_topologies.py [OUTDIR]      (default: the folder of this script)
Needs: lstopo-no-graphics (Debian package `hwloc`), python3 standard library only.
"""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

NVIDIA = "10de"
ILUVATAR = "1e3e"
ASPEED = "1a03"
MELLANOX = "15b3"
BROADCOM = "1000"


def gpu(bus, numa, model, device, vendor=NVIDIA, subsys="10de:1463", osdevs=("cuda", "nvml"), switch=None):
    return dict(kind="gpu", bus=bus, numa=numa, model=model, device=device, vendor=vendor,
                subsys=subsys, osdevs=osdevs, switch=switch)


def nic(bus, numa, name, netdev, switch=None):
    """A ConnectX-6 InfiniBand HCA (15b3:101b): its netdev and its OpenFabrics device (port 1 active)."""
    return dict(kind="nic", bus=bus, numa=numa, name=name, netdev=netdev, switch=switch)


def pci(bus, numa, vendor, device, klass, subtype=None):
    return dict(kind="other", bus=bus, numa=numa, vendor=vendor, device=device, klass=klass,
                subtype=subtype)


def nvswitches(buses, numa, device):
    return [pci(b, numa, NVIDIA, device, "0680", "NVSwitch") for b in buses]


def gpus(buses, numas, model, device, **kw):
    return [gpu(b, n, model, device, **kw) for b, n in zip(buses, numas)]


# HGX A100 baseboard as in DGX A100: GPU pairs on NUMA 3,1,7,5 (NPS4), NVSwitches, BMC VGA.
HGX_A100_DEVICES = (
    gpus(["07", "0f", "47", "4e", "87", "90", "b7", "bd"], [3, 3, 1, 1, 7, 7, 5, 5], "NVIDIA A100-SXM4-80GB", "20b2")
    + nvswitches(["c4", "c5", "c6", "c7", "c8", "c9"], 5, "1af1")
    + [pci("c2", 4, ASPEED, "2000", "0300")])

# DGX A100: each of the 4 PCIe switches holds a GPU pair and two compute HCAs (DGX A100 user guide:
# mlx5_0-3 and mlx5_6-9 are ibp12s0, ibp18s0, ibp75s0, ibp84s0, ibp141s0, ibp148s0, ibp186s0, ibp204s0,
# i.e. buses 0c, 12, 4b, 54, 8d, 94, ba, cc); the storage NICs (mlx5_4, mlx5_5) are left out.
DGX_A100_SWITCHES = [  # (switch, NUMA node, GPU buses, [(HCA bus, name, netdev)])
    ("sw0", 3, ["07", "0f"], [("0c", "mlx5_0", "ibp12s0"), ("12", "mlx5_1", "ibp18s0")]),
    ("sw1", 1, ["47", "4e"], [("4b", "mlx5_2", "ibp75s0"), ("54", "mlx5_3", "ibp84s0")]),
    ("sw2", 7, ["87", "90"], [("8d", "mlx5_6", "ibp141s0"), ("94", "mlx5_7", "ibp148s0")]),
    ("sw3", 5, ["b7", "bd"], [("ba", "mlx5_8", "ibp186s0"), ("cc", "mlx5_9", "ibp204s0")]),
]
DGX_A100_DEVICES = (
    [gpu(b, numa, "NVIDIA A100-SXM4-80GB", "20b2", switch=sw) for sw, numa, buses, _ in DGX_A100_SWITCHES for b in buses]
    + [nic(b, numa, name, netdev, switch=sw) for sw, numa, _, hcas in DGX_A100_SWITCHES for b, name, netdev in hcas]
    + nvswitches(["c4", "c5", "c6", "c7", "c8", "c9"], 5, "1af1")
    + [pci("c2", 4, ASPEED, "2000", "0300")])

# Each entry: synthetic CPU description, DMI product, PCI devices. Sources of the maps are in README.md.
SYSTEMS = {
    # 2x EPYC 7742, NPS4: 8 NUMA nodes of 16 cores, SMT siblings at +128.
    "dgxa100.xml": dict(
        synthetic="pack:2 numa:4 l3:4 core:4 pu:2(indexes=core:pack)",
        product="DGXA100",
        devices=DGX_A100_DEVICES),
    # 2x Xeon 8480C, 56 cores each, SNC off: NUMA0 0-55,112-167; NUMA1 56-111,168-223.
    "dgxh100.xml": dict(
        synthetic="pack:2 numa:1 l3:1 core:56 pu:2(indexes=core:pack)",
        product="DGXH100",
        devices=gpus(["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"], [0, 0, 0, 0, 1, 1, 1, 1],
                     "NVIDIA H100 80GB HBM3", "2330", subsys="10de:16c1")
        + nvswitches(["05", "06", "07", "08"], 0, "22a3")
        + [pci("c1", 1, ASPEED, "2000", "0300")]),
    # 2x 48-core Xeon (ESC N8-E11 / P8000 class), SMT siblings at +96.
    "p8000h100.xml": dict(
        synthetic="pack:2 numa:1 l3:1 core:48 pu:2(indexes=core:pack)",
        product="P8000H100",
        devices=gpus(["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"], [0, 0, 0, 0, 1, 1, 1, 1],
                     "NVIDIA H100 80GB HBM3", "2330", subsys="10de:16c1")
        + [pci("03", 0, ASPEED, "2000", "0300")]),
    # 2x EPYC 7543 (32 cores, 4 CCDs of 8), NPS4: NUMA k = cores 8k..8k+7 + siblings at +64.
    # GPU map: HGX A100 board wired as in DGX A100 (GPU pairs on NUMA 3,1,7,5).
    "samsung_dgxa100.xml": dict(
        synthetic="pack:2 numa:4 l3:1 core:8 pu:2(indexes=core:pack)",
        product="DGXA100",
        devices=HGX_A100_DEVICES),
    # Intel 2-socket CPU node: 2x 40 cores (Xeon 8380 class), SMT siblings at +80, no accelerator.
    "xeon_2s.xml": dict(
        synthetic="pack:2 numa:1 l3:1 core:40 pu:2(indexes=core:pack)",
        product="Xeon2S",
        devices=[pci("03", 0, ASPEED, "2000", "0300")]),
    # 8 Iluvatar CoreX cards on a 2x 32-core host, cards 0-3 on NUMA0, 4-7 on NUMA1.
    "iluvatar8.xml": dict(
        synthetic="pack:2 numa:1 l3:1 core:32 pu:2(indexes=core:pack)",
        product="Iluvatar8",
        devices=gpus(["1a", "1b", "3d", "3e", "9c", "9d", "bc", "bd"], [0, 0, 0, 0, 1, 1, 1, 1],
                     "Iluvatar CoreX BI-V100", "0001", vendor=ILUVATAR, subsys="1e3e:0001",
                     osdevs=("cuda",))
        + [pci("03", 0, ASPEED, "2000", "0300")]),
    # One-GPU boxes with 16 cores, no SMT.
    "h100_1gpu_16c.xml": dict(
        synthetic="pack:1 numa:1 l3:1 core:16 pu:1",
        product="H100-1GPU",
        devices=gpus(["1b"], [0], "NVIDIA H100 80GB HBM3", "2330", subsys="10de:16c1")),
    "h200_1gpu_16c.xml": dict(
        synthetic="pack:1 numa:1 l3:1 core:16 pu:1",
        product="H200-1GPU",
        devices=gpus(["1b"], [0], "NVIDIA H200", "2335", subsys="10de:18be")),
}


class Builder:
    def __init__(self, root):
        self.root = root
        self.next_gp = 1 + max(int(o.get("gp_index", "0")) for o in root.iter("object"))
        self.counters = {}
        self.switches = {}  # switch name -> (its upstream bridge, next downstream port)
        self.devices = []

    def switch_port(self, dev, holder):
        """host bridge -> switch upstream bridge -> one downstream bridge per device (bus ids illustrative)."""
        name = dev["switch"]
        if name not in self.switches:
            buses = [int(d["bus"], 16) for d in self.devices if d.get("switch") == name]
            lo, hi = min(buses) - 2, max(buses)
            host = self.obj(holder, type="Bridge", bridge_type="0-1", depth="0", bridge_pci=f"0000:[{lo:02x}-{hi:02x}]")
            up = self.obj(host, type="Bridge", bridge_type="1-1", depth="1", bridge_pci=f"0000:[{lo + 1:02x}-{hi:02x}]",
                          pci_busid=f"0000:{lo:02x}:00.0", pci_type=f"0604 [{BROADCOM}:c010] [{BROADCOM}:a064] b0",
                          pci_link_speed="31.507692")
            self.switches[name] = [up, 0, lo + 1]
        up, port, bus = self.switches[name]
        self.switches[name][1] += 1
        return self.obj(up, type="Bridge", bridge_type="1-1", depth="2", bridge_pci=f"0000:[{dev['bus']}-{dev['bus']}]",
                        pci_busid=f"0000:{bus:02x}:{port:02x}.0", pci_type=f"0604 [{BROADCOM}:c010] [{BROADCOM}:a064] b0",
                        pci_link_speed="31.507692")

    def obj(self, parent, **attrs):
        e = ET.SubElement(parent, "object")
        for k, v in attrs.items():
            e.set(k.rstrip("_"), v)
        e.set("gp_index", str(self.next_gp))
        self.next_gp += 1
        return e

    def holder_of_numa(self, os_index):
        """The normal object a NUMA node hangs from: where the node's I/O devices attach."""
        for parent in self.root.iter("object"):
            for child in parent.findall("object"):
                if child.get("type") == "NUMANode" and child.get("os_index") == str(os_index):
                    return parent
        raise SystemExit(f"no NUMA node {os_index}")

    def add(self, dev):
        holder = self.holder_of_numa(dev["numa"])
        busid = f"0000:{dev['bus']}:00.0"
        if dev.get("switch"):
            bridge = self.switch_port(dev, holder)
        else:
            bridge = self.obj(holder, type="Bridge", bridge_type="0-1", depth="0",
                              bridge_pci=f"0000:[{dev['bus']}-{dev['bus']}]")
        if dev["kind"] == "nic":
            pcidev = self.obj(bridge, type="PCIDev", pci_busid=busid,
                              pci_type=f"0207 [{MELLANOX}:101b] [{MELLANOX}:0007] 00", pci_link_speed="31.507692")
            ET.SubElement(pcidev, "info", name="PCIVendor", value="Mellanox Technologies")
            ET.SubElement(pcidev, "info", name="PCIDevice", value="MT28908 Family [ConnectX-6]")
            net = self.obj(pcidev, type="OSDev", name=dev["netdev"], osdev_type="2")
            ET.SubElement(net, "info", name="Port", value="1")
            ib = self.obj(pcidev, type="OSDev", name=dev["name"], osdev_type="3")
            ET.SubElement(ib, "info", name="Port1State", value="4")
            ET.SubElement(ib, "info", name="Port1LinkLayer", value="InfiniBand")
        elif dev["kind"] == "gpu":
            pcidev = self.obj(bridge, type="PCIDev", pci_busid=busid,
                              pci_type=f"0302 [{dev['vendor']}:{dev['device']}] [{dev['subsys']}] a1",
                              pci_link_speed="31.507692")
            for prefix in dev["osdevs"]:
                n = self.counters.get(prefix, 0)
                self.counters[prefix] = n + 1
                if prefix == "nvml":
                    os = self.obj(pcidev, type="OSDev", name=f"nvml{n}", subtype="NVML", osdev_type="1")
                else:
                    os = self.obj(pcidev, type="OSDev", name=f"{prefix}{n}", subtype="CUDA", osdev_type="5")
                ET.SubElement(os, "info", name="Backend", value="NVML" if prefix == "nvml" else "CUDA")
                ET.SubElement(os, "info", name="GPUModel", value=dev["model"])
        else:
            attrs = dict(type="PCIDev", pci_busid=busid,
                         pci_type=f"{dev['klass']} [{dev['vendor']}:{dev['device']}] [{dev['vendor']}:0000] a1",
                         pci_link_speed="0.000000")
            if dev["subtype"]:
                attrs["subtype"] = dev["subtype"]
            self.obj(bridge, **attrs)


def generate(name, spec, outdir):
    xml = subprocess.run(["lstopo-no-graphics", "-i", spec["synthetic"], "--of", "xml", "-"],
                         check=True, capture_output=True, text=True).stdout
    root = ET.fromstring(xml.split("\n", 2)[2])  # drop the XML declaration and DOCTYPE lines
    machine = root.find("object")
    for info in machine.findall("info"):
        if info.get("name") in ("Backend", "ProcessName", "hwlocVersion"):
            machine.remove(info)
    # hwloc wants an object's <info> children before its <object> children.
    first_obj = list(machine).index(machine.find("object"))
    for i, (k, v) in enumerate([("DMIProductName", spec["product"]),
                                ("GeneratedBy", "systems/topologies/make_topologies.py")]):
        machine.insert(first_obj + i, ET.Element("info", name=k, value=v))
    b = Builder(root)
    b.devices = spec["devices"]
    for dev in spec["devices"]:
        b.add(dev)
    ET.indent(root, space="  ")
    body = ET.tostring(root, encoding="unicode")
    with open(os.path.join(outdir, name), "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE topology SYSTEM "hwloc2.dtd">\n')
        f.write(body + "\n")


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name, spec in SYSTEMS.items():
        generate(name, spec, outdir)
        print(f"wrote {os.path.join(outdir, name)}")


if __name__ == "__main__":
    main()
