// What a mounted block device is made of, read from sysfs under a root
// (platform-spec §5.4, §5.6): an NVMe namespace and its controller's
// transport and PCI function, a partition and its disk, md (its RAID level)
// and device-mapper devices (LVM, dm-crypt, multipath: the uuid prefix)
// with the devices below them, loop devices, SCSI and virtio disks. GPUDirect
// Storage goes direct only on some of these; the check decides, this reads.
// Stacks come from the node: depth and fan-out are bounded and cycles end.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "host/root.h"
#include "topology/pci_address.h"

namespace gdrcheck {

struct BlockDevice {
  enum class Kind { NvmeNamespace, Partition, Md, DeviceMapper, Loop, Scsi, Virtio, Other };
  std::string name;  // "nvme0n1p1", "dm-3", "md0"
  Kind kind = Kind::Other;
  // Md: the level ("raid0", "raid1"). DeviceMapper: what the uuid prefix
  // says ("LVM", "CRYPT", "mpath", "part", or "" when another target) and
  // the dm name. Loop: the backing file.
  std::string level;
  std::string dm_kind, dm_name;
  std::string backing_file;
  // NvmeNamespace: the controller ("nvme0") and what it says of itself.
  std::string controller;
  std::string transport;              // "pcie", "rdma", "tcp", "fc", "loop"; "" when not read
  std::optional<PciAddress> pci;      // the controller's PCI function (pcie)
  std::vector<BlockDevice> below;     // a partition's disk, md/dm members
  std::vector<std::string> evidence;  // "file = value" lines that decided the above
  std::string problem;                // why part of it could not be read; "" when whole
};

const char* block_kind_name(BlockDevice::Kind k);  // "NVMe namespace", "partition", ...

// The block device a mount table's device field names, as a name under
// /sys/class/block: "/dev/nvme0n1p1" → "nvme0n1p1", "/dev/mapper/vg-data" →
// the dm-N whose dm/name is "vg-data", a /dev link resolved inside the root.
// nullopt when it is not a block device this root shows (a network file
// system's "server:/export", "/dev/root", a device the root lacks).
std::optional<std::string> block_device_name(const Root& root, const std::string& device_field);

// The device and everything below it.
BlockDevice read_block_device(const Root& root, const std::string& name);

}  // namespace gdrcheck
