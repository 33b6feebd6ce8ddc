// The IPv4 addresses of a host's network interfaces and the PCI function
// and port behind each, so that an address cuFile is told to use
// (rdma_dev_addr_list) can be tied to an RDMA NIC. This machine: the
// kernel's list (getifaddrs). A recorded root: the list a snapshot stored
// in /.gdrcheck/commands/ipv4-addresses.txt ("IFNAME ADDRESS" lines);
// roots without it do not know their addresses (nullopt).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "host/root.h"
#include "topology/pci_address.h"

namespace gdrcheck {

inline constexpr const char* kAddressesCapture = "/.gdrcheck/commands/ipv4-addresses.txt";

struct InterfaceAddress {
  std::string interface;          // "ib0", "ens1f0np0"
  std::string ipv4;               // "10.10.0.21"
  std::optional<PciAddress> pci;  // /sys/class/net/IF/device
  int port = 1;                   // /sys/class/net/IF/dev_port + 1
};

std::optional<std::vector<InterfaceAddress>> read_interface_addresses(const Root& root);

// An interface named by configuration (LNet's `networks`): its PCI function
// and port from sysfs, without an address. nullopt for a name that is not
// a plain interface name.
std::optional<InterfaceAddress> locate_interface(const Root& root, const std::string& name);

// "IFNAME ADDRESS" lines of this machine's IPv4 addresses, as a snapshot
// stores them.
std::string live_addresses_text();

}  // namespace gdrcheck
