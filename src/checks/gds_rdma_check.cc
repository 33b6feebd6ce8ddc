// `gds.rdma`: the RDMA NICs cuFile is told to use for remote storage
// (properties.rdma_dev_addr_list: client-side IPv4 addresses; platform-spec
// §5.2, §5.3). Each address must be this host's, on an RDMA NIC whose port
// is up; the NIC's PCIe path to the GPUs it serves is judged like a drive's
// (nearest GPUs; across sockets a WARNING; ACS, IOMMU and link through
// checks/gds_paths.h). An address is tied to a NIC by the port's RoCE GIDs
// (IPv4-mapped) or by the interface that holds it (InfiniBand's IPoIB).
#include "checks/gds_checks.h"
#include "checks/gds_paths.h"
#include "checks/storage_nic.h"
#include "host/text_format.h"

namespace gdrcheck {
namespace {

Finding judge_storage_address(const NodeEvidence& e, const GdsState& g, const std::string& raw, const std::string& file,
                              GdsPaths& paths) {
  const std::string ip = printable(raw);
  std::vector<std::string> ev{file + ": properties.rdma_dev_addr_list has " + ip};
  std::string not_rdma;
  StorageNic at = find_nic_by_address(e, g, raw, not_rdma);
  if (!at.device) {
    if (!not_rdma.empty())
      return problem("gds.rdma", ip, Status::Warning, ip + " is on " + not_rdma + ", which is not an RDMA NIC", ev,
                     "list the addresses of this node's RDMA NICs (ip -br addr; rdma link) in rdma_dev_addr_list");
    if (g.addresses)
      return problem("gds.rdma", ip, Status::Warning,
                     ip + " is not an address of this host: cuFile cannot use it for RDMA", ev,
                     "rdma_dev_addr_list holds this client's own RDMA NIC addresses (ip -br addr), per node");
    ev.push_back("this root holds no interface addresses (" + std::string(kAddressesCapture) + ")");
    return problem("gds.rdma", ip, Status::Unknown,
                   ip + " is in no RoCE GID of this root's NICs, and its interface addresses are not known", ev,
                   "run gdrcheck gds on the node, or capture it with gdrcheck snapshot");
  }
  ev.push_back(at.how);
  return judge_storage_nic(e, "gds.rdma", ip, ip + " is on ", *at.device, at.port, std::move(ev),
                           "list a NIC of the GPUs' socket in rdma_dev_addr_list", paths);
}

bool user_space_rdma_mounted(const GdsState& g) {
  if (!g.mounts) return false;
  for (const auto& m : g.mounts->mounts)
    if (m.fstype == "wekafs" || m.fstype == "gpfs") return true;
  return false;
}

}  // namespace

std::vector<Finding> check_gds_peermem(const NodeEvidence& e, const GdsState& g,
                                       const std::optional<CufileConfig>& config) {
  bool listed = config && !config->rdma_dev_addr_list.empty();
  if (!listed && !user_space_rdma_mounted(g)) return {};
  std::vector<Finding> out = check_peermem(e);
  for (auto& f : out) {
    f.check = "gds.peermem";
    if (config && config->rdma_peer_type == "dmabuf")
      f.evidence.push_back(config->file +
                           ": rdma_peer_type \"dmabuf\": cuFile registers GPU memory through DMA-BUF, "
                           "not nvidia-peermem");
  }
  return out;
}

std::vector<Finding> check_gds_rdma(const NodeEvidence& e, const GdsState& g, const std::optional<CufileConfig>& config,
                                    GdsPaths& paths) {
  if (!config || config->rdma_dev_addr_list.empty()) return {};
  std::vector<Finding> out;
  for (const auto& ip : config->rdma_dev_addr_list) out.push_back(judge_storage_address(e, g, ip, config->file, paths));
  return out;
}

}  // namespace gdrcheck
