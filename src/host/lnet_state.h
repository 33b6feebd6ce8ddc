// Which networks Lustre's LNet runs on this host, so that a Lustre mount
// can be tied to the RDMA NICs it reads through: the local network
// interfaces (NIs) LNet lists — /sys/kernel/debug/lnet/nis (current
// Lustre) or /proc/sys/lnet/nis (older), first column a NID such as
// "10.10.0.21@o2ib" — and the `networks` module parameter
// ("o2ib0(ib0,ib1),tcp0(eth0)"), which names interfaces.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "host/host_state.h"
#include "host/interface_addresses.h"
#include "host/root.h"

namespace gdrcheck {

struct LnetNid {
  std::string address;  // "10.10.0.21"
  std::string net;      // "o2ib", "o2ib1", "tcp", "lo"
};

struct LnetState {
  std::optional<std::vector<LnetNid>> nids;  // nullopt: no NI list readable
  std::string nids_file;                     // where they were read, or what was looked at
  Fact networks;                             // /sys/module/lnet/parameters/networks
  // Interfaces the `networks` parameter names for o2ib networks, located
  // in sysfs (PCI function, port); empty when it names none.
  std::vector<InterfaceAddress> o2ib_interfaces;
};

// "10.10.0.21@o2ib 3 ..." lines → NIDs; header and malformed lines skipped.
std::vector<LnetNid> parse_lnet_nis(const std::string& text);
// "o2ib0(ib0,ib1),tcp0(eth0)" → {"ib0", "ib1"} (interfaces of o2ib networks).
std::vector<std::string> o2ib_interfaces_of(const std::string& networks);

LnetState read_lnet_state(const Root& root);

}  // namespace gdrcheck
