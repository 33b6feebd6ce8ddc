// Which GPU each rank of an NCCL log ran on, and which NICs each process
// listed: what the predicted-vs-actual cross-check (analyze/crosscheck.h)
// needs to name the GPU and the NIC behind a channel line's
// "0[0] -> 8[0] via NET/IB/3/GDRDMA".
//
// Sources, per release (src/init.cc:ncclCommInitRankFunc and its
// predecessors, every tag v2.4.8-1 .. v2.30.7-1):
//   "comm %p rank %d nranks %d cudaDev %d nvmlDev %d - Init COMPLETE"  2.4-2.6
//   "comm %p rank %d nranks %d cudaDev %d busId %x - Init COMPLETE"    2.7-2.17
//   "[ncclCommInitRank ]comm %p rank %d nranks %d cudaDev %d nvmlDev %d
//    busId %lx [parent ...] commId 0x%llx - Init START|COMPLETE"       2.18.3+
// busId is NCCL's int64 form of the bus id: its hex digits without ':'
// and '.', so 1b000 is 0000:1b:00.0. nccl-tests prints one line per rank:
//   "#  Rank  0 Group  0 Pid 123 on node01 device  0 [0000:19:00] NVIDIA H100"
//   "#   Rank  0 Pid 123 on node01 device  0 [0x1b] Tesla V100" (older: bus only)
// and "NET/<net> : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB" lists each
// process's devices by index (2.21-2.23 fuse ports: "[0]={[0] mlx5_0:1/IB,
// [1] mlx5_1:1/IB}").
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topology/pci_address.h"

namespace gdrcheck {

struct NcclRankPlace {
  std::string host;  // "" when masked or not printed
  int rank = 0;
  int nranks = 0;  // of the communicator that printed it; 0 from nccl-tests lines
  int cuda_dev = -1;
  std::optional<int> nvml_dev;
  std::optional<PciAddress> bus;  // the GPU's bus id, when printed
  std::size_t line = 0;
};

struct NcclNetDeviceList {
  std::string host;                // "" when masked or not printed
  std::string net;                 // "IB", "IBext_v8"
  std::vector<std::string> names;  // by NET index: "mlx5_0", "mlx5_0+mlx5_1" (fused)
  std::size_t line = 0;
};

// NCCL's GDR decision for one GPU and NIC, as INFO prints it from 2.4 to
// 2.29 (src/transport/net.cc; 2.30 prints it at TRACE level only):
//   "NET/IB : GPU Direct RDMA Disabled for GPU %d[%d] / HCA %d (distance %d >= %d)"  2.4-2.6, cudaDev[nvmlDev]
//   "GPU Direct RDMA Enabled for GPU %lx / HCA %d (distance %d <= %d), read %d"       2.7-2.22, busId
//   "GPU Direct RDMA Disabled for GPU %lx / HCA %lx (distance %d > %d)"              2.23-2.29, the NET's
//                                                   topology id: (system << 56) + device index
struct NcclGdrStatement {
  std::string host;
  std::optional<PciAddress> bus;  // 2.7+
  std::optional<int> cuda_dev;    // 2.4-2.6
  int hca = 0;                    // the NET device index
  bool enabled = false;
  std::optional<int> read;  // Enabled lines: 1 = sends are read from GPU memory too
  int distance = 0, level = 0;
  std::size_t line = 0;
};

struct NcclRankMap {
  // One per (host, rank): the place printed by the largest communicator
  // (the job's world; split communicators renumber ranks), first line seen.
  std::vector<NcclRankPlace> ranks;
  // Distinct (host, net, names) lists, in order seen.
  std::vector<NcclNetDeviceList> device_lists;
  // Distinct statements (host, GPU, HCA, decision), in order seen.
  std::vector<NcclGdrStatement> gdr_statements;

  const NcclRankPlace* place(const std::string& host, int rank) const;
  // The device list of `host`; when the log has one distinct list (one
  // host, hosts alike, or host names masked), that list for any host.
  const NcclNetDeviceList* devices_of(const std::string& host) const;
};

// Fed by the log reader (nccl_log.h) with the records it does not take as
// connection lines, and with lines that hold no record; bounded: 65,536
// ranks, 1,024 device lists.
class NcclRankMapCollector {
 public:
  NcclRankMapCollector();
  ~NcclRankMapCollector();
  NcclRankMapCollector(NcclRankMapCollector&&) noexcept;
  NcclRankMapCollector& operator=(NcclRankMapCollector&&) noexcept;

  void on_record(std::string_view host, std::string_view msg, std::size_t line);
  void on_bare_line(std::string_view text, std::size_t line);
  NcclRankMap finish() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The rank map of a whole log (tests; analyze gets it from the log reader).
NcclRankMap read_nccl_rank_map(std::string_view text);

// NCCL's int64 bus id as printed in hex ("1b000", "11b000" = 0001:1b:00.0); nullopt
// when it is not one.
std::optional<PciAddress> nccl_bus_id(std::string_view hex);

}  // namespace gdrcheck
