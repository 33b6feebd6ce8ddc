#include "topology/hwloc_source.h"

#include <hwloc.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include "host/address_space_limit.h"
#include "host/isolated_call.h"
#include "host/pci_names.h"
#include "host/root_audit.h"
#include "host/sysfs_values.h"
#include "host/text_format.h"
#include "host/user_file.h"
#include "topology/hwloc_index_bounds.h"
#include "topology/input_error.h"
#include "topology/path_evidence.h"

namespace gdrcheck {
namespace {

// hwloc takes the recorded root only through the environment. Sets the
// variables for one load and puts the caller's values back afterwards.
class ScopedEnv {
 public:
  void set(const char* name, const std::string& value) {
    const char* old = std::getenv(name);
    saved_.push_back({name, old ? std::optional<std::string>(old) : std::nullopt});
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second)
        ::setenv(it->first, it->second->c_str(), 1);
      else
        ::unsetenv(it->first);
    }
  }

 private:
  std::vector<std::pair<const char*, std::optional<std::string>>> saved_;
};

using HwlocTopo = std::unique_ptr<hwloc_topology, void (*)(hwloc_topology_t)>;

HwlocTopo new_topology() {
  // hwloc loads its plugins here. They query the running machine, not the
  // recorded root: libpciaccess (hwloc_pci.so, from libhwloc-plugins, which
  // Open MPI pulls in; it also leaves its name cache behind), OpenCL, GL,
  // and in other builds CUDA, NVML, ROCm SMI and Level Zero. The Linux
  // backend reads PCI from sysfs under HWLOC_FSROOT, so results must not
  // depend on which plugins a host has.
  // hwloc_xml_libxml.so: libxml2's importer in hwloc 2.9 crashes on a
  // document with entities; hwloc's built-in reader loads every lstopo file.
  ScopedEnv env;
  env.set("HWLOC_PLUGINS_BLACKLIST",
          "hwloc_pci.so,hwloc_opencl.so,hwloc_gl.so,hwloc_cuda.so,hwloc_nvml.so,hwloc_rsmi.so,hwloc_levelzero.so,"
          "hwloc_xml_libxml.so");
  hwloc_topology_t t = nullptr;
  hwloc_topology_init(&t);
  // Keep every bridge and PCI function: user-named extra devices and the
  // full bridge chains must all be there.
  hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL);
  return HwlocTopo(t, hwloc_topology_destroy);
}

std::string cpulist_of(hwloc_const_bitmap_t set) {
  if (!set || hwloc_bitmap_iszero(set)) return "";
  char* s = nullptr;
  hwloc_bitmap_list_asprintf(&s, set);
  std::string out = s ? s : "";
  std::free(s);
  return out;
}

// The NUMA node, package and CPUs an I/O object is attached to. A host
// bridge attached to the machine root of a multi-NUMA machine has unknown
// locality (numa_node -1 and no local_cpus in the capture).
Locality locality_of(hwloc_topology_t topo, hwloc_obj_t io) {
  Locality loc;
  hwloc_obj_t normal = hwloc_get_non_io_ancestor_obj(topo, io);
  if (!normal) return loc;
  int numa_total = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  bool at_root = normal->parent == nullptr;
  if (at_root && numa_total > 1) return loc;
  if (normal->nodeset && hwloc_bitmap_weight(normal->nodeset) == 1) loc.numa = hwloc_bitmap_first(normal->nodeset);
  if (hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, normal))
    loc.package = static_cast<int>(pkg->os_index);
  else if (normal->type == HWLOC_OBJ_PACKAGE)
    loc.package = static_cast<int>(normal->os_index);
  loc.cpus = cpulist_of(normal->cpuset);
  return loc;
}

PciAddress address_of(const hwloc_obj_attr_u::hwloc_pcidev_attr_s& p) {
  PciAddress a;
  a.domain = p.domain;
  a.bus = p.bus;
  a.device = p.dev;
  a.function = p.func;
  return a;
}

void copy_pci_ids(PciNode& n, const hwloc_obj_attr_u::hwloc_pcidev_attr_s& p) {
  n.address = address_of(p);
  n.ids_known = true;
  n.vendor = p.vendor_id;
  n.device = p.device_id;
  n.subsystem_vendor = p.subvendor_id;
  n.subsystem_device = p.subdevice_id;
  n.pci_class = static_cast<uint32_t>(p.class_id) << 8;  // hwloc drops the prog-if
  if (p.linkspeed > 0) n.link.gbytes_per_s = p.linkspeed;
}

// hwloc's XML reader stores bridge_type and osdev_type numbers as they are
// written, so a file can hold a value none of the enum's names has; reading
// it as the enum would be undefined behaviour. The value is read as the
// integer it is.
template <typename Enum>
int stored_value(const Enum& e) {
  static_assert(sizeof(Enum) == sizeof(int));
  int value = 0;
  std::memcpy(&value, &e, sizeof value);
  return value;
}

std::string host_bridge_label(const hwloc_obj_t o) {
  char buf[32];
  const auto& d = o->attr->bridge.downstream.pci;
  std::snprintf(buf, sizeof buf, "pci%04x:%02x", d.domain, d.secondary_bus);
  return buf;
}

// Walks hwloc's I/O tree into Topology nodes; remembers which node each
// PCI device object became, and the RDMA device names hanging off it.
struct Converter {
  hwloc_topology_t topo;
  Topology& out;
  std::map<int, std::vector<std::string>> rdma_names;  // node → mlx5_0, ...

  void walk(hwloc_obj_t o, int parent) {
    int self = parent;
    if (o->type == HWLOC_OBJ_BRIDGE) {
      PciNode n;
      n.parent = parent;
      if (stored_value(o->attr->bridge.upstream_type) == HWLOC_OBJ_BRIDGE_HOST) {
        n.kind = PciNode::Kind::HostBridge;
        n.label = host_bridge_label(o);
        n.locality = locality_of(topo, o);
      } else {
        n.kind = PciNode::Kind::Bridge;
        copy_pci_ids(n, o->attr->bridge.upstream.pci);
      }
      self = out.add_node(std::move(n));
    } else if (o->type == HWLOC_OBJ_PCI_DEVICE) {
      PciNode n;
      n.parent = parent;
      n.kind = PciNode::Kind::Device;
      copy_pci_ids(n, o->attr->pcidev);
      if (parent < 0) n.locality = locality_of(topo, o);  // function on a root bus without host bridge object
      self = out.add_node(std::move(n));
    } else if (o->type == HWLOC_OBJ_OS_DEVICE) {
      if (stored_value(o->attr->osdev.type) == HWLOC_OBJ_OSDEV_OPENFABRICS && parent >= 0 && o->name)
        rdma_names[parent].push_back(o->name);
      return;
    }
    for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling) walk(c, self);
  }

  void run() {
    // I/O trees hang off normal objects; visit every normal object's I/O children.
    std::function<void(hwloc_obj_t)> visit = [&](hwloc_obj_t o) {
      for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling) walk(c, -1);
      for (hwloc_obj_t c = o->first_child; c; c = c->next_sibling) visit(c);
      for (hwloc_obj_t c = o->memory_first_child; c; c = c->next_sibling) visit(c);
    };
    visit(hwloc_get_root_obj(topo));
  }
};

bool matches_selection(const PciNode& n, const DeviceSelection& sel) {
  if (!n.address) return false;
  for (const auto& a : sel.addresses)
    if (a == *n.address) return true;
  for (uint32_t c : sel.class_prefixes) {
    if (c <= 0xffff && (n.pci_class >> 8) == c) return true;
    if (c > 0xffff && n.pci_class == c) return true;
    if (c <= 0xff && (n.pci_class >> 16) == c) return true;
  }
  return false;
}

bool is_nvidia_gpu(const PciNode& n) {
  uint32_t cls = n.pci_class >> 8;
  return n.vendor == 0x10de && (cls == 0x0300 || cls == 0x0302);
}

bool is_mellanox_nic(const PciNode& n) {
  uint32_t cls = n.pci_class >> 8;
  return n.vendor == 0x15b3 && ((cls >> 8) == 0x02 || cls == 0x0c06);
}

Endpoint make_endpoint(const Topology& t, int node, DeviceRole role) {
  const PciNode& n = t.nodes[node];
  Endpoint e;
  e.role = role;
  e.node = node;
  e.address = n.address;
  e.model = pci_device_name(n.vendor, n.device);
  e.name = e.address ? e.address->str() : "";
  e.locality = t.locality_of(node);
  return e;
}

void add_endpoints(Topology& t, const std::map<int, std::vector<std::string>>& rdma, const DeviceSelection& sel) {
  std::vector<Endpoint> gpus, nvswitches, nics, nvmes, extras;
  for (int i = 0; i < static_cast<int>(t.nodes.size()); ++i) {
    const PciNode& n = t.nodes[i];
    if (n.kind != PciNode::Kind::Device) continue;
    auto rd = rdma.find(i);
    if (is_nvidia_gpu(n))
      gpus.push_back(make_endpoint(t, i, DeviceRole::Gpu));
    else if (n.vendor == 0x10de && (n.pci_class >> 8) == 0x0680)
      nvswitches.push_back(make_endpoint(t, i, DeviceRole::NvSwitch));
    else if (rd != rdma.end()) {
      for (const auto& name : rd->second) {
        Endpoint e = make_endpoint(t, i, DeviceRole::Nic);
        e.name = name;
        nics.push_back(std::move(e));
      }
    } else if (is_mellanox_nic(n)) {
      Endpoint e = make_endpoint(t, i, DeviceRole::Nic);
      e.rdma_device = false;
      nics.push_back(std::move(e));
    } else if ((n.pci_class >> 8) == 0x0108)
      nvmes.push_back(make_endpoint(t, i, DeviceRole::Nvme));
    else if (matches_selection(n, sel))
      extras.push_back(make_endpoint(t, i, DeviceRole::Extra));
  }
  // NICs with an RDMA device in name order (mlx5_0, mlx5_1, ..., mlx5_10), the rest by bus id.
  std::stable_sort(nics.begin(), nics.end(), [](const Endpoint& a, const Endpoint& b) {
    if (a.rdma_device != b.rdma_device) return a.rdma_device;
    return a.rdma_device ? natural_less(a.name, b.name) : *a.address < *b.address;
  });
  auto number = [&t](std::vector<Endpoint>& v, const char* prefix) {
    // nvidia-smi numbers GPUs in PCI bus order; NICs are already ordered.
    if (v.empty() || v.front().role != DeviceRole::Nic)
      std::stable_sort(v.begin(), v.end(),
                       [](const Endpoint& a, const Endpoint& b) { return *a.address < *b.address; });
    for (std::size_t i = 0; i < v.size(); ++i) {
      v[i].id = prefix + std::to_string(i);
      t.endpoints.push_back(std::move(v[i]));
    }
  };
  number(gpus, "GPU");
  number(nics, "NIC");
  number(nvswitches, "NVS");
  number(nvmes, "NVME");
  number(extras, "DEV");
}

Topology convert(hwloc_topology_t topo, SourceKind kind, const std::string& source, const DeviceSelection& sel) {
  Topology t;
  t.kind = kind;
  t.source = source;
  t.tree = TreeStyle::Ports;
  t.numa_count = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  Converter c{topo, t, {}};
  c.run();
  add_endpoints(t, c.rdma_names, sel);
  if (t.nodes.empty()) t.notes.push_back("no PCI devices found in " + source);
  return t;
}

// hwloc reads only part of what checks need; the rest comes straight from
// each function's sysfs directory.
void enrich_from_sysfs(Topology& t, const Root& root) {
  for (auto& n : t.nodes) {
    if (!n.address) continue;
    std::string dir = "/sys/bus/pci/devices/" + n.address->str();
    if (auto cls = parse_sysfs_hex(root.read(dir + "/class").content)) n.pci_class = *cls;
    n.link.current_gts = parse_link_speed(root.read(dir + "/current_link_speed").content);
    n.link.max_gts = parse_link_speed(root.read(dir + "/max_link_speed").content);
    n.link.current_width = parse_link_width(root.read(dir + "/current_link_width").content);
    n.link.max_width = parse_link_width(root.read(dir + "/max_link_width").content);
  }
  for (auto& e : t.endpoints) {
    if (!e.address) continue;
    std::string dir = "/sys/bus/pci/devices/" + e.address->str();
    if (auto link = root.readlink(dir + "/driver")) e.attributes["driver"] = link->substr(link->rfind('/') + 1);
    FileRead numa = root.read(dir + "/numa_node");
    if (numa.ok()) e.attributes["numa_node"] = numa.trimmed();
  }
}

// Collects the numa_node values (>= 0) of every PCI function below a node.
void numa_nodes_below(const Topology& t, const Root& root, int node, std::vector<long>& out) {
  for (int c : t.nodes[node].children) {
    if (const auto& a = t.nodes[c].address) {
      auto v = parse_sysfs_int(root.read("/sys/bus/pci/devices/" + a->str() + "/numa_node").content);
      if (v && *v >= 0) out.push_back(*v);
    }
    numa_nodes_below(t, root, c, out);
  }
}

// hwloc places I/O by local_cpus; some firmware reports every CPU there but
// a real numa_node, which is what NCCL reads. Place host bridges hwloc left
// unplaced from the numa_node of the functions below them, when they agree.
void place_from_numa_node(Topology& t, const Root& root) {
  for (int i = 0; i < static_cast<int>(t.nodes.size()); ++i) {
    PciNode& n = t.nodes[i];
    if (n.kind != PciNode::Kind::HostBridge || n.locality.known()) continue;
    std::vector<long> numa;
    numa_nodes_below(t, root, i, numa);
    if (numa.empty() || std::count(numa.begin(), numa.end(), numa.front()) != static_cast<long>(numa.size())) continue;
    n.locality.numa = static_cast<int>(numa.front());
    std::string node_dir = "/sys/devices/system/node/node" + std::to_string(numa.front());
    n.locality.cpus = parse_cpulist(root.read(node_dir + "/cpulist").content).value_or("");
  }
  for (auto& e : t.endpoints) e.locality = t.locality_of(e.node);
}

void note_missing_rdma_class(Topology& t, const Root& root) {
  bool nic_without_rdma = false;
  for (const auto& e : t.endpoints)
    if (e.role == DeviceRole::Nic && !e.rdma_device) nic_without_rdma = true;
  if (!nic_without_rdma) return;
  if (!root.is_dir("/sys/class/infiniband"))
    t.notes.push_back(
        "no /sys/class/infiniband: RDMA devices are not loaded (or not captured); "
        "Mellanox functions are listed by bus id with no RDMA device");
  else
    t.notes.push_back("some Mellanox functions have no RDMA device in /sys/class/infiniband");
}

}  // namespace

Topology load_sysfs_topology_unprobed(const Root& root, const DeviceSelection& extra) {
  HwlocTopo topo = new_topology();
  {
    ScopedEnv env;
    env.set("HWLOC_FSROOT", root.dir());
    // The x86 backend would read this host's CPUID, not the recorded one.
    env.set("HWLOC_COMPONENTS", "-x86");
    env.set("HWLOC_HIDE_ERRORS", "1");
    AddressSpaceGrowthLimit memory(kHwlocLoadMemory);
    if (hwloc_topology_load(topo.get()) != 0)
      throw InputError(root.dir(), "hwloc could not read a topology from this root");
  }
  refuse_impossible_os_indexes(topo.get(), root.dir());
  std::string source = root.is_live() ? "/" : root.dir();
  Topology t = convert(topo.get(), SourceKind::Sysfs, source, extra);
  enrich_from_sysfs(t, root);
  place_from_numa_node(t, root);
  mark_unproven_paths(t, root);
  note_missing_rdma_class(t, root);
  if (!root.is_dir("/sys/bus/pci/devices")) t.notes.push_back("no /sys/bus/pci/devices under " + source);
  return t;
}

Topology load_hwloc_xml_unprobed(const std::string& text, const std::string& source, const DeviceSelection& extra) {
  HwlocTopo topo = new_topology();
  // hwloc picks its XML reader once per process, from these variables, at
  // the first XML load; HWLOC_LIBXML would override HWLOC_LIBXML_IMPORT.
  ScopedEnv env;
  env.set("HWLOC_LIBXML", "0");
  env.set("HWLOC_LIBXML_IMPORT", "0");
  env.set("HWLOC_HIDE_ERRORS", "1");
  // From memory: hwloc opens no file, so nothing can be swapped in between
  // our checks and its read.
  {
    AddressSpaceGrowthLimit memory(kHwlocLoadMemory);
    if (hwloc_topology_set_xmlbuffer(topo.get(), text.data(), static_cast<int>(text.size())) != 0 ||
        hwloc_topology_load(topo.get()) != 0)
      throw InputError(source, "not a topology hwloc can load (hwloc XML v1/v2 expected)");
  }
  refuse_impossible_os_indexes(topo.get(), source);
  return convert(topo.get(), SourceKind::HwlocXml, source, extra);
}

namespace {

// hwloc 2.9 segfaults on some malformed XML even with its own minimal
// reader (a NUMANode nested under a v1 Socket, found by fuzzing) and its
// sysfs reader can be led into long loops by a crafted tree. Input from
// another machine is loaded in a throwaway child first; only a load that
// ends there cleanly is done in this process. A load the child refused
// (our own InputError) is reported from there, never repeated: hwloc's
// failure paths are the ones hostile input reaches, and they leak what
// hwloc had built. Any other exception is repeated below, so that it
// surfaces here as itself.
void probe_in_child(const std::function<void()>& load, const std::string& source) {
  IsolatedEnd end = run_isolated(load, kHwlocProbeLimit);
  if (end.input_error) throw *end.input_error;
  if (end.finished() || end.kind == IsolatedEnd::Kind::Failed) return;
  throw InputError(source, "hwloc " + end.describe() + " while reading it; gdrcheck does not load it");
}

}  // namespace

Topology read_sysfs_topology(const Root& root, const DeviceSelection& extra) {
  if (root.is_live()) return load_sysfs_topology_unprobed(root, extra);
  // hwloc opens files under HWLOC_FSROOT with plain openat(): a link out of
  // a recorded tree would be read on this machine, as root.
  audit_root_for_hwloc(root);
  probe_in_child([&] { load_sysfs_topology_unprobed(root, extra); }, root.dir());
  return load_sysfs_topology_unprobed(root, extra);
}

bool looks_like_hwloc_xml(std::string_view text) {
  std::size_t pos = text.find("<topology");
  return pos != std::string_view::npos && pos < 512;
}

void refuse_xml_declarations(std::string_view text, const std::string& source) {
  // Entity declarations are what expansion bombs and the libxml importer
  // crash are made of; hwloc writes none.
  if (text.find("<!ENTITY") != std::string_view::npos)
    throw InputError(source, "declares an XML entity (<!ENTITY); hwloc XML has none, so gdrcheck does not load it");
  std::string_view doctype = "<!DOCTYPE";
  std::size_t i = 0;
  // Each DOCTYPE is scanned to its closing '>' (outside quoted names) and
  // the search goes on from there: one pass over the text, however hostile.
  while ((i = text.find(doctype, i)) != std::string_view::npos) {
    char quote = 0;
    for (i += doctype.size(); i < text.size(); ++i) {
      char c = text[i];
      if (quote) {
        if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '[') {
        throw InputError(source,
                         "has a DOCTYPE with its own declarations (<!DOCTYPE ... [...]>); hwloc XML has none, so "
                         "gdrcheck does not load it");
      } else if (c == '>') {
        break;
      }
    }
  }
}

Topology read_hwloc_xml_text(const std::string& text, const std::string& source, const DeviceSelection& extra) {
  refuse_xml_declarations(text, source);
  if (text.size() > kMaxTopologyFile)
    throw InputError(source, "larger than " + std::to_string(kMaxTopologyFile >> 20) + " MiB; not a topology file");
  probe_in_child([&] { load_hwloc_xml_unprobed(text, source, extra); }, source);
  return load_hwloc_xml_unprobed(text, source, extra);
}

Topology read_hwloc_xml(const std::string& path, const DeviceSelection& extra) {
  return read_hwloc_xml_text(read_user_file(path, kMaxTopologyFile, "topology file"), path, extra);
}

}  // namespace gdrcheck
