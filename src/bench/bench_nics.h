// The NICs a bench run is judged against and the GPU-NIC pairs perftest
// tests, taken from `gdrcheck node` on this host (or a recorded root), or
// from the figures the user gave for hosts without a report. Pure.
#pragma once

#include <string>
#include <vector>

#include "bench/expected_bandwidth.h"
#include "checks/node_report.h"
#include "host/host_state.h"

namespace gdrcheck {

// One GPU and the NIC NCCL would give it, as perftest needs them.
struct GpuNicPair {
  std::string gpu;         // "GPU0"
  std::string gpu_bus_id;  // "0000:17:00.0" for --use_cuda_bus_id
  std::string nic;         // RDMA device "mlx5_0"
  int port = 1;
  double port_rate_gbps = 0;  // 0 = not known
  LinkLayer link_layer = LinkLayer::Unknown;
  // No peer-memory module, but DMA-BUF is possible: only DMA-BUF can
  // register GPU memory, so perftest needs --use_cuda_dmabuf.
  bool dmabuf_only = false;
  std::string nccl_path;  // NCCL's path class to the NIC ("PIX", "PHB", ...)
};

struct NodeNicFacts {
  std::string host;
  int gpus = 0;
  std::vector<NicSpec> nics;  // NICs NCCL would use (from the predictions), one entry per port kind
  std::vector<GpuNicPair> pairs;
  std::vector<std::string> notes;  // NICs without a readable rate, GPUs without a NIC, ...
};

NodeNicFacts nic_facts_from_node(const NodeReport& report, const HostState& host);

// --nic-rate GBPS --nics N [--link-layer ib|roce]: one NIC kind per node.
NicSpec nic_from_flags(double rate_gbps, int count, const std::string& link_layer);

}  // namespace gdrcheck
