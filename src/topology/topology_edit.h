// `node --topo FILE --what-if "move 0000:ca:00.0 under 0000:17:00.0"`: a
// vendor's slot plan compared before the order. Moves a device (every
// function of its slot) to another place in the PCI tree of a topology
// file and leaves the rest as it was; the node report then judges the
// edited tree like any other. Pure: the caller reads the edit file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "topology/pci_address.h"
#include "topology/topology.h"

namespace gdrcheck {

struct DeviceMove {
  PciAddress device;  // a function of the slot to move (all its functions move)
  PciAddress under;   // a bridge (or NCCL switch) to put it below; a device: beside it
};

// "move A under B", several separated by ';' or new lines. Throws
// std::invalid_argument naming the part that is not understood.
std::vector<DeviceMove> parse_what_if_text(std::string_view text);

// {"moves": [{"device": "0000:ca:00.0", "under": "0000:17:00.0"}]}; `name`
// is the file, for the errors: InputError when it is not JSON (or too
// deep, or a key twice), std::invalid_argument when it is not such a file.
std::vector<DeviceMove> parse_what_if_json(std::string_view text, const std::string& name);

// What one move did, in words: "mlx5_3 (0000:ca:00.0) moved from under
// 0000:c9:02.0 to under 0000:17:00.0 (a new downstream port)".
struct AppliedMove {
  DeviceMove move;
  std::string description;
};

// Applies the moves in order. Throws std::invalid_argument when the tree
// has no such device or place, when the place is inside the device
// itself, or when the topology has no PCI tree (a pasted matrix).
std::vector<AppliedMove> apply_moves(Topology& t, const std::vector<DeviceMove>& moves);

}  // namespace gdrcheck
