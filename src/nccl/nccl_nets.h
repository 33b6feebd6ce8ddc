// The network devices NCCL's own IB transport enumerates: only ports that
// ibverbs shows (the uverbs device must exist: ibv_get_device_list), that
// are ACTIVE, whose link layer is InfiniBand or Ethernet (RoCE), and that
// pass NCCL_IB_HCA (src/transport/net_ib.cc:ncclIbInit@v2.12.12-1 …
// src/transport/net_ib/init.cc:ncclIbInitDevices@v2.30.7-1). With none
// left the IB transport reports no device and NCCL uses its Socket
// transport (src/plugin/net.cc@v2.30.7-1). Pure: the caller reads the
// port facts.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "host/nccl_settings.h"
#include "nccl/nccl_params.h"
#include "nccl/nccl_version.h"
#include "nccl/tri.h"
#include "topology/topology.h"

namespace gdrcheck {

// One RDMA device port as the host shows it (/sys/class/infiniband).
struct NicPortFacts {
  std::string nic_id;         // topology endpoint id of its PCI function
  std::string device;         // mlx5_0
  int port = 1;               // IB port number
  Tri uverbs = Tri::Unknown;  // its uverbs char device exists (ib_uverbs loaded)
  std::string state;          // "ACTIVE", "DOWN", "INIT", "ARMED"; "" = unreadable
  std::string link_layer;     // "InfiniBand", "Ethernet", anything else; "" = unreadable
  double gbps = 0;            // port rate in Gb/s; 0 = unknown
};

// One device NCCL offers for a GPU's traffic.
struct NcclNet {
  std::string name;    // "mlx5_0"
  std::string nic_id;  // endpoint id that places it in the topology
  int port = 1;
  double gbps = 0;          // 0 = unknown
  bool facts_known = true;  // state and link layer were read (else assumed usable)
};

struct NcclNetList {
  std::vector<NcclNet> nets;  // in NCCL's device order
  // Devices NCCL leaves out, by NIC endpoint id: "mlx5_0 port 1 DOWN".
  std::map<std::string, std::string> left_out;
  std::vector<std::string> rules;  // the filter, what was left out, assumptions
};

// `ports` nullopt: the source shows no port state (a topology file alone);
// every RDMA NIC endpoint is then taken as an ACTIVE port 1 and a rule says so.
NcclNetList nccl_nets(const Topology& view, const std::optional<std::vector<NicPortFacts>>& ports,
                      const NcclSettings& settings, const NcclVersion& version);

}  // namespace gdrcheck
