#include "checks/check_catalog.h"

namespace gdrcheck {
namespace {

constexpr Status kOk = Status::Ok, kWarning = Status::Warning, kCritical = Status::Critical, kUnknown = Status::Unknown;

}  // namespace

// Each line summarises the header comment of the check's source file; the
// statuses are the ones its code can return.
const std::vector<CheckInfo>& check_catalog() {
  static const std::vector<CheckInfo> catalog = {
      {"gpu",
       "NVIDIA GPUs: present, model, NUMA node, driver binding, whether GPUDirect RDMA applies to them",
       {kOk, kWarning, kCritical, kUnknown}},
      {"nic",
       "RDMA NICs: model and generation, PF or VF, firmware, an RDMA device for the function",
       {kOk, kCritical, kUnknown}},
      {"port",
       "RDMA ports: state, link layer (InfiniBand or RoCE), rate against the NIC model, RoCE v2 GID",
       {kOk, kWarning, kCritical, kUnknown}},
      {"peermem",
       "how the NIC reaches GPU memory: nvidia_peermem registered, nv_peer_mem, or DMA-BUF",
       {kOk, kWarning, kCritical, kUnknown}},
      {"path",
       "each GPU's NIC and PCIe path class (PIX/PXB/PHB/NODE/SYS), rail alignment, flattened VM trees",
       {kOk, kWarning, kCritical, kUnknown}},
      {"acs",
       "ACS redirect and egress bits on every bridge between a GPU and its NIC (PCI config space)",
       {kOk, kCritical, kUnknown}},
      {"iommu",
       "whether the IOMMU translates GPU and NIC DMA (group type, kernel command line)",
       {kOk, kWarning, kCritical, kUnknown}},
      {"link",
       "PCIe link width and speed of GPUs, NICs and the switch uplinks between them",
       {kOk, kWarning, kCritical, kUnknown}},
      {"nccl",
       "NCCL's predicted GPUDirect RDMA use per GPU and the NCCL settings that change it",
       {kOk, kWarning, kCritical, kUnknown}},
      {"driver", "NVIDIA driver version and flavour, kernel release, RDMA kernel modules", {kOk, kCritical, kUnknown}},
      {"manifest", "differences from the site manifest given with --manifest", {kOk, kCritical}},
      {"host",
       "node --topo only: the host facts a topology file lacks (peer memory, ports, ACS, IOMMU, links, driver), "
       "stated with --assume or UNKNOWN",
       {kOk, kCritical, kUnknown}},
      // node --gds (and gdrcheck gds): GPUDirect Storage.
      {"gds.driver",
       "node --gds: the nvidia-fs module, the storage drivers registered with it, bridges it found with ACS",
       {kOk, kWarning, kUnknown}},
      {"gds.cufile",
       "node --gds: the cuFile configuration libcufile reads: compat mode, P2PDMA routes, denylists, syntax",
       {kOk, kWarning, kCritical, kUnknown}},
      {"gds.mount",
       "node --gds: the file systems holding data: type, options, block stack (LVM, md, dm-crypt) and route",
       {kOk, kWarning, kCritical, kUnknown}},
      {"gds.placement", "node --gds: each local NVMe drive's PCIe path to its nearest GPUs", {kOk, kWarning, kUnknown}},
      {"gds.rdma",
       "node --gds: the RDMA NICs cufile.json's rdma_dev_addr_list names: this host's, port ACTIVE, path to the GPUs",
       {kOk, kWarning, kUnknown}},
      {"gds.lnet",
       "node --gds: with a Lustre mount, the NICs LNet reads it through (o2ib NIs): ACTIVE, near the GPUs; TCP only",
       {kOk, kWarning, kUnknown}},
      {"gds.peermem",
       "node --gds: peer memory (nvidia_peermem, DMA-BUF) when cuFile does RDMA from user space (rdma_dev_addr_list, "
       "WekaFS, GPFS)",
       {kOk, kWarning, kCritical, kUnknown}},
      {"gds.p2pdma",
       "node --gds: with cufile.json's PCI-P2PDMA route on, its prerequisites (kernel, open driver 565+, GPU, "
       "multipath, registry keys)",
       {kOk, kWarning, kUnknown}},
      {"gds.acs",
       "node --gds: ACS on every bridge between each NVMe drive and its nearest GPUs",
       {kOk, kCritical, kUnknown}},
      {"gds.iommu",
       "node --gds: whether the IOMMU translates the NVMe drives' DMA",
       {kOk, kWarning, kCritical, kUnknown}},
      {"gds.link",
       "node --gds: PCIe link width and speed of the NVMe drives and the switch uplinks above them",
       {kOk, kWarning, kCritical, kUnknown}},
  };
  return catalog;
}

const CheckInfo* find_check(std::string_view id) {
  for (const auto& c : check_catalog())
    if (c.id == id) return &c;
  return nullptr;
}

std::string check_ids_text() {
  std::string out;
  for (const auto& c : check_catalog()) out += (out.empty() ? "" : ", ") + std::string(c.id);
  return out;
}

}  // namespace gdrcheck
