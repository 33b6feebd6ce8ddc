#include "topology/topology_edit.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "host/text_format.h"
#include "host/untrusted_json.h"

namespace gdrcheck {
namespace {

std::string node_text(const Topology& t, int node) {
  const PciNode& n = t.nodes[node];
  return n.address ? n.address->str() : printable(n.label);
}

PciAddress address_in(const std::string& word, const std::string& part) {
  auto a = PciAddress::parse(word);
  if (!a) throw std::invalid_argument("'" + printable(part) + "': '" + printable(word) + "' is not a PCI address");
  return *a;
}

DeviceMove parse_one(const std::string& part) {
  std::istringstream words(part);
  std::vector<std::string> w;
  for (std::string s; words >> s;) w.push_back(s);
  if (w.size() != 4 || w[0] != "move" || (w[2] != "under" && w[2] != "beside"))
    throw std::invalid_argument("'" + printable(part) + "' is not 'move DEVICE under BRIDGE' (PCI addresses)");
  return {address_in(w[1], part), address_in(w[3], part)};
}

int node_at(const Topology& t, const PciAddress& a) {
  for (std::size_t i = 0; i < t.nodes.size(); ++i)
    if (t.nodes[i].address == a) return static_cast<int>(i);
  throw std::invalid_argument("no device " + a.str() + " in the topology");
}

// The functions of one slot share bus, device number and parent.
std::vector<int> slot_functions(const Topology& t, int node) {
  const PciNode& n = t.nodes[node];
  if (n.kind != PciNode::Kind::Device) return {node};
  std::vector<int> out;
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    const PciNode& o = t.nodes[i];
    if (o.kind == PciNode::Kind::Device && o.parent == n.parent && o.address &&
        o.address->domain == n.address->domain && o.address->bus == n.address->bus &&
        o.address->device == n.address->device)
      out.push_back(static_cast<int>(i));
  }
  return out;
}

bool at_or_below(const Topology& t, int node, int ancestor) {
  for (int n = node; n >= 0; n = t.nodes[n].parent)
    if (n == ancestor) return true;
  return false;
}

// A switch's upstream port has downstream ports below it, never devices: a
// device put there gets a downstream port of its own, as a slot would.
int place_below(Topology& t, int target, std::string& how) {
  const PciNode& u = t.nodes[target];
  if (u.kind == PciNode::Kind::Device) {
    how = "beside " + u.address->str() + " (under " + node_text(t, u.parent) + ")";
    return u.parent;
  }
  bool upstream_port = t.tree == TreeStyle::Ports && u.kind == PciNode::Kind::Bridge && !u.children.empty() &&
                       std::all_of(u.children.begin(), u.children.end(),
                                   [&](int c) { return t.nodes[c].kind == PciNode::Kind::Bridge; });
  if (!upstream_port) return target;
  PciNode port;
  port.kind = PciNode::Kind::Bridge;
  port.parent = target;
  port.label = "downstream port (what-if)";
  port.pci_class = 0x060400;
  how = "under " + node_text(t, target) + " (a new downstream port)";
  return t.add_node(std::move(port));
}

void reparent(Topology& t, int node, int parent) {
  auto& old = t.nodes[t.nodes[node].parent].children;
  old.erase(std::remove(old.begin(), old.end(), node), old.end());
  t.nodes[node].parent = parent;
  t.nodes[parent].children.push_back(node);
}

// Devices inherit the place of their root: a moved one forgets its own.
void relocate(Topology& t, int moved) {
  for (std::size_t i = 0; i < t.nodes.size(); ++i)
    if (at_or_below(t, static_cast<int>(i), moved) && t.nodes[i].kind == PciNode::Kind::Device)
      t.nodes[i].locality = {};
  for (auto& e : t.endpoints)
    if (e.node >= 0 && at_or_below(t, e.node, moved)) e.locality = t.locality_of(e.node);
}

std::string node_name_of(const Topology& t, int node) {
  for (const auto& e : t.endpoints)
    if (e.node == node) return printable(e.role == DeviceRole::Nic ? e.name : e.id) + " (" + node_text(t, node) + ")";
  return node_text(t, node);
}

}  // namespace

std::vector<DeviceMove> parse_what_if_text(std::string_view text) {
  std::vector<DeviceMove> out;
  std::string part;
  for (char c : std::string(text) + ";") {
    if (c != ';' && c != '\n') {
      part += c;
      continue;
    }
    if (part.find_first_not_of(" \t\r") != std::string::npos) out.push_back(parse_one(part));
    part.clear();
  }
  if (out.empty()) throw std::invalid_argument("no move given (write 'move DEVICE under BRIDGE')");
  return out;
}

std::vector<DeviceMove> parse_what_if_json(std::string_view text, const std::string& name) {
  nlohmann::json j = parse_untrusted_json(text, name, "what-if edit file");
  if (!j.is_object()) throw std::invalid_argument(name + ": not a JSON object");
  auto moves = j.find("moves");
  if (moves == j.end() || !moves->is_array() || moves->empty())
    throw std::invalid_argument(name + ": needs \"moves\": [{\"device\": ..., \"under\": ...}]");
  for (const auto& [key, value] : j.items())
    if (key != "moves") throw std::invalid_argument(name + ": unknown key \"" + printable(key) + "\"");
  std::vector<DeviceMove> out;
  for (const auto& m : *moves) {
    if (!m.is_object() || m.size() != 2 || !m.contains("device") || !m.contains("under") || !m["device"].is_string() ||
        !m["under"].is_string())
      throw std::invalid_argument(name + ": each move is {\"device\": \"PCI address\", \"under\": \"PCI address\"}");
    std::string d = m["device"], u = m["under"];
    out.push_back({address_in(d, name), address_in(u, name)});
  }
  return out;
}

std::vector<AppliedMove> apply_moves(Topology& t, const std::vector<DeviceMove>& moves) {
  if (t.tree == TreeStyle::None)
    throw std::invalid_argument(
        "a pasted nvidia-smi matrix has no PCI tree to move devices in: give lstopo XML or NCCL's topology dump");
  std::vector<AppliedMove> out;
  for (const auto& m : moves) {
    int device = node_at(t, m.device), target = node_at(t, m.under);
    if (t.nodes[device].parent < 0)
      throw std::invalid_argument(m.device.str() + " is a root of the tree, not a device");
    if (at_or_below(t, target, device))
      throw std::invalid_argument(m.under.str() + " is " + m.device.str() + " or below it: cannot move it there");
    std::string from = node_text(t, t.nodes[device].parent), how;
    std::string what = node_name_of(t, device);
    int parent = place_below(t, target, how);
    for (int f : slot_functions(t, device)) {
      reparent(t, f, parent);
      relocate(t, f);
    }
    if (how.empty()) how = "under " + m.under.str();
    out.push_back({m, what + " moved from under " + from + " to " + how});
  }
  return out;
}

}  // namespace gdrcheck
