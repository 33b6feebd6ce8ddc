// The NVMe controllers a host shows in /sys/class/nvme: name, transport
// (pcie, rdma, tcp, fc, loop), model and, over PCIe, the PCI function, so
// that GPUDirect Storage checks can place each drive against the GPUs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "host/root.h"
#include "topology/pci_address.h"
#include "topology/topology.h"

namespace gdrcheck {

struct NvmeController {
  std::string name;       // "nvme0"
  std::string transport;  // "" when not readable
  std::string model;
  std::optional<PciAddress> pci;
  std::vector<std::string> evidence;
};

// One controller by name ("nvme0"): its transport, model and, over PCIe,
// its PCI function, with the files that said so.
NvmeController read_nvme_controller(const Root& root, const std::string& name);

// Controllers in name order; at most 1,024 (a real host has tens).
std::vector<NvmeController> read_nvme_controllers(const Root& root);

// Names the topology's NVMe functions after their controllers ("nvme0"
// instead of a bus id), so findings speak of drives as the operator does.
void name_nvme_endpoints(Topology& t, const std::vector<NvmeController>& controllers);

}  // namespace gdrcheck
