// GPUDirect Storage checks of the driver route and the cuFile configuration
// (finding ids `gds.driver`, `gds.cufile`, `gds.mount`; platform-spec §5.1, §5.2, §5.7).
// Pure: the host state (host/gds_state.h) and the parsed configuration
// (evidence/cufile_config.h) are read by the caller.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "checks/finding.h"
#include "checks/node_evidence.h"
#include "evidence/cufile_config.h"
#include "evidence/gdscheck.h"
#include "host/gds_state.h"

namespace gdrcheck {

// nvidia-fs: loaded and its version, the storage drivers that registered
// GDS DMA operations, the bridges it found with ACS enabled. Not loaded is
// a WARNING, not CRITICAL: the PCI-P2PDMA and user-space RDMA routes do not
// need it (gds-diag nvidia_fs.py's rule).
std::vector<Finding> check_gds_driver(const GdsState& g);

// The cuFile configuration libcufile would read: forced compat mode
// (CRITICAL), a file that is not JSON (libcufile then uses its defaults),
// values of the wrong type, P2PDMA switched on without a route (or the
// reverse), denied drivers, devices, mounts and file systems. `config` is
// the parsed file when one was found and read.
std::vector<Finding> check_gds_cufile(const GdsState& g, const std::optional<CufileConfig>& config);

// The file systems that hold data and whether cuFile I/O on them can go
// direct: type and options (ext4 needs data=ordered), the block stack
// (NVMe over PCIe or RDMA, md RAID0 of NVMe; not LVM, dm-crypt, multipath,
// other md levels, loop), and the route it needs (a storage driver
// registered with nvidia-fs, cuFile's P2PDMA route, or peer memory for
// user-space RDMA). With --path (g.path) the one mount holding it is
// judged, and a mount where I/O fails because compat mode is off is
// CRITICAL; without it, GDS-capable storage is judged and the rest listed.
std::vector<Finding> check_gds_mounts(const GdsState& g, const std::optional<CufileConfig>& config);

// Each local NVMe drive against the GPUs: the GPUs with the shortest PCIe
// path (the ones it should feed) and the path class — under a switch OK,
// through the root complex OK (slower), across sockets WARNING. The paths
// go to `paths`, which checks/gds_paths.h judges (ACS, IOMMU, link). `e` is
// the node's topology and host state (no NCCL prediction is used).
struct GdsPaths;
std::vector<Finding> check_gds_placement(const NodeEvidence& e, const GdsState& g, GdsPaths& paths);

// The RDMA NICs cufile.json's rdma_dev_addr_list names: each address this
// host's, on an RDMA NIC whose port is ACTIVE, and the NIC's path to the
// GPUs (across sockets a WARNING; its paths go to `paths`). Nothing when
// the list is empty.
std::vector<Finding> check_gds_rdma(const NodeEvidence& e, const GdsState& g, const std::optional<CufileConfig>& config,
                                    GdsPaths& paths);

// With a Lustre mount: the NICs LNet reads it through (its o2ib NIs, or
// the interfaces its `networks` parameter names), each ACTIVE and near the
// GPUs; LNet over TCP only is a WARNING (no RDMA for the mount).
std::vector<Finding> check_gds_lnet(const NodeEvidence& e, const GdsState& g, GdsPaths& paths);

// Peer memory as the node's peermem check judges it (nvidia_peermem
// registered, nv_peer_mem, DMA-BUF), under gds.peermem, when cuFile does
// RDMA from user space: rdma_dev_addr_list set, or WekaFS/GPFS mounted.
// Kernel RDMA routes (Lustre, NFS over RDMA, NVMe-oF) do not need it.
std::vector<Finding> check_gds_peermem(const NodeEvidence& e, const GdsState& g,
                                       const std::optional<CufileConfig>& config);

// When cufile.json turns the PCI-P2PDMA route on: its prerequisites (a
// kernel with P2PDMA, the open NVIDIA module 565+, Ampere or newer GPUs,
// on x86 NVMe multipath off and the driver's registry keys), one finding
// each; nothing when the route is off.
std::vector<Finding> check_gds_p2pdma(const NodeEvidence& e, const GdsState& g,
                                      const std::optional<CufileConfig>& config);

// `gdscheck -p` output (`file`, as the user named it) against the files:
// nvidia-fs loaded and its major.minor version, compat mode and
// use_pci_p2pdma, the nvfs transports against the storage drivers
// registered with nvidia-fs, ACS-enabled switches against nvidia-fs's
// bridges; gdscheck's own errors. One OK for what agrees, a WARNING per
// difference (either side may be older: never CRITICAL); facts only one
// side states are listed as not compared.
std::vector<Finding> check_gds_gdscheck(const GdsState& g, const std::optional<CufileConfig>& config,
                                        const GdscheckReport& p, const std::string& file);

}  // namespace gdrcheck
