// The RDMA NICs GPUDirect Storage reads remote storage through (cuFile's
// rdma_dev_addr_list, LNet's network interfaces): which RDMA device and
// port holds an address or an interface, and the judgement of that port —
// ACTIVE, and near the GPUs (platform-spec §5.2, §5.3).
#pragma once

#include <string>
#include <vector>

#include "checks/finding.h"
#include "checks/gds_paths.h"
#include "checks/node_evidence.h"
#include "host/gds_state.h"

namespace gdrcheck {

struct StorageNic {
  const RdmaDevice* device = nullptr;  // null when not found
  const RdmaPort* port = nullptr;
  std::string how;  // evidence: the GID or the interface that tied them
};

// The RDMA port holding IPv4 `ip`: a RoCE v2 GID that maps it, else the
// interface that holds it (g.addresses). When an interface holds it but has
// no RDMA device, `not_rdma` names the interface.
StorageNic find_nic_by_address(const NodeEvidence& e, const GdsState& g, const std::string& ip, std::string& not_rdma);

// The RDMA port behind a network interface located in sysfs.
StorageNic find_nic_by_interface(const NodeEvidence& e, const InterfaceAddress& iface);

// The port ACTIVE, then its nearest GPUs (across sockets a WARNING, with
// `fix`); the NIC's path goes to `paths`. `lead` starts every summary
// ("10.0.0.5 is on ").
Finding judge_storage_nic(const NodeEvidence& e, const std::string& check, const std::string& subject,
                          const std::string& lead, const RdmaDevice& device, const RdmaPort* port,
                          std::vector<std::string> evidence, const std::string& fix, GdsPaths& paths);

}  // namespace gdrcheck
