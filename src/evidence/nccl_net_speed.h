// The rate of a network device as an NCCL log line prints it, for the
// expected-bandwidth comparison. NCCL prints it in three forms:
//
//   NET/IB: [0] mlx5_0:uverbs0:1/IB provider=Mlx5 speed=400000 context=0x... pciPath=... ar=1
//     per IB device at init, NET subsystem, 2.27+; speed in Mb/s
//     [transport/net_ib/init.cc:ncclIbInitDevices, "NET/IB: [%d] %s:%s:%d/%s provider=%s speed=%d ..."]
//   NET/IB : Made virtual device [0] name=mlx5_0 speed=400000 ndevs=1
//     per (virtual, possibly merged) NIC, NET subsystem; speed in Mb/s, the sum of the merged ports
//     [transport/net_ib.cc:ncclIbMakeVDeviceInternal, "NET/IB : Made virtual device [%d] name=%s speed=%d ndevs=%d"]
//   + NET[1.2] - NET/0 (0/0/1.250000)
//     topology dump, GRAPH subsystem; the node's "(asic/port/bw)" with bw in GB/s (= Mb/s / 8000) and no
//     device name: the net device's topology id stands for it
//     [graph/topo.cc:ncclTopoPrintRec, "%s/%lX (%lx/%d/%f)"; 2.19+ prints the id as "%lx-%lx"]
#pragma once

#include <optional>
#include <string_view>

namespace gdrcheck {

struct NcclNetSpeedLine {
  std::string_view name;        // "mlx5_0", "mlx5_0+mlx5_1", "NET/0"
  std::optional<int> port;      // when printed
  double speed_mbps = 0;        // megabits per second
  std::string_view link_layer;  // "IB", "RoCE"; "" when not printed
};

// The device speed a message (the text after "NCCL INFO") states, if any.
std::optional<NcclNetSpeedLine> parse_nccl_net_speed(std::string_view msg);

}  // namespace gdrcheck
