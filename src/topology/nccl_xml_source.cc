// NCCL topology XML (nccl-spec.md §5) → Switches-style Topology.
//
// The file is NCCL's own grouping: <cpu> elements are NUMA nodes and every
// <pci> with <pci> children is one switch, so the tree is taken as written.
// Cloud files often leave out <gpu>/<nic> children and give only a class,
// so endpoints come from the children when present and from the class
// otherwise (NCCL's own class table: 0x03 → GPU, 0x02 → NIC).
#include "topology/nccl_xml_source.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <set>
#include <tuple>

#include <pugixml.hpp>

#include "host/pci_names.h"
#include "host/sysfs_values.h"
#include "text/ascii.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

// Real dumps are at most ~6 levels deep; the limit keeps hostile input from
// exhausting the stack in the recursive walk below.
constexpr int kMaxPciDepth = 64;

std::optional<long long> parse_decimal(std::string_view s) {
  s = ascii::trim(s);
  long long v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// "0x10de" (what NCCL writes) or plain decimal, like strtol(..., 0).
std::optional<uint64_t> parse_number(std::string_view s, int* hex_digits = nullptr) {
  s = ascii::trim(s);
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  if (hex_digits) *hex_digits = base == 16 ? static_cast<int>(s.size()) : 0;
  return v;
}

std::optional<uint16_t> parse_id16(const pugi::xml_node& n, const char* attr) {
  auto a = n.attribute(attr);
  if (!a) return std::nullopt;
  auto v = parse_number(a.value());
  if (!v || *v > 0xffff) return std::nullopt;
  return static_cast<uint16_t>(*v);
}

// sysfs writes 6 hex digits; a 4-digit "0x0604" (hwloc's class_id style)
// is taken as class+subclass with programming interface 0.
std::optional<uint32_t> parse_class(const pugi::xml_node& n) {
  auto a = n.attribute("class");
  if (!a) return std::nullopt;
  int digits = 0;
  auto v = parse_number(a.value(), &digits);
  if (!v || *v > 0xffffff) return std::nullopt;
  uint32_t c = static_cast<uint32_t>(*v);
  if (digits > 0 && digits <= 4) c <<= 8;
  return c;
}

bool is_bridge_class(uint32_t c) {
  return (c >> 8) == 0x0604 || c == 0x080100;
}  // 0x080100: CX-8 data direct

struct Pending {
  Endpoint e;
  std::optional<long long> dev;  // NCCL's device index, when the file gives one
  std::size_t order = 0;         // file order, the last tie breaker
};

class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {
    t_.kind = SourceKind::NcclXml;
    t_.source = source;
    t_.tree = TreeStyle::Switches;
  }

  Topology read(const pugi::xml_node& system) {
    for (auto child : system.children()) {
      if (child.type() != pugi::node_element) continue;
      if (std::string_view(child.name()) == "cpu")
        read_cpu(child);
      else
        ignored_.insert(std::string("<") + child.name() + "> under <system>");
    }
    finish();
    return std::move(t_);
  }

 private:
  void read_cpu(const pugi::xml_node& cpu) {
    PciNode n;
    n.kind = PciNode::Kind::Cpu;
    auto numa = parse_decimal(cpu.attribute("numaid").value());
    n.locality.numa = numa && *numa >= 0 && *numa < (1 << 20) ? static_cast<int>(*numa) : -1;
    if (!numa) t_.notes.push_back("a <cpu> has no usable numaid: NUMA node unknown (-1)");
    n.label = "CPU" + std::to_string(n.locality.numa);
    read_affinity(cpu, n);
    if (n.locality.numa >= 0) numa_ids_.insert(n.locality.numa);
    Locality loc = n.locality;
    int idx = t_.add_node(std::move(n));
    for (auto child : cpu.children()) {
      if (child.type() != pugi::node_element) continue;
      std::string_view name = child.name();
      if (name == "pci")
        read_pci(child, idx, loc, 1);
      else if (name == "nic")
        read_nic(child, idx, std::nullopt, loc);
      else
        ignored_.insert("<" + std::string(name) + "> under <cpu>");
    }
  }

  // NCCL's affinity is the node's sysfs cpumap, so the sysfs mask parser
  // applies. A non-zero affinity_offset (newer NCCL, CPU ids shifted) is
  // rare; the list is left unknown rather than shifted wrongly.
  void read_affinity(const pugi::xml_node& cpu, PciNode& n) {
    auto aff = cpu.attribute("affinity");
    if (!aff || ascii::trim(aff.value()).empty()) return;
    if (parse_decimal(cpu.attribute("affinity_offset").as_string("0")).value_or(1) != 0) {
      t_.notes.push_back(n.label + ": affinity_offset not supported; CPU list unknown");
      return;
    }
    auto list = cpumask_to_cpulist(aff.value());
    if (list && !list->empty())
      n.locality.cpus = *list;
    else
      t_.notes.push_back(n.label + ": affinity '" + std::string(aff.value()).substr(0, 80) +
                         "' is not a CPU mask; CPU list unknown");
  }

  void read_pci(const pugi::xml_node& pci, int parent, const Locality& loc, int depth) {
    if (depth > kMaxPciDepth)
      throw InputError(source_, "<pci> elements nested deeper than " + std::to_string(kMaxPciDepth) + " levels");
    PciNode n = pci_node(pci, parent);
    bool has_pci_child = static_cast<bool>(pci.child("pci"));
    auto cls = parse_class(pci);
    // Without a class (hand-written AWS files) a <pci> holding other <pci>
    // elements can only be a switch; NCCL would fill the class from sysfs.
    if (cls ? is_bridge_class(*cls) : has_pci_child) n.kind = PciNode::Kind::Bridge;
    if (!cls && has_pci_child) ++classless_switches_;
    int idx = t_.add_node(std::move(n));
    bool endpoint = read_children(pci, idx, loc, depth);
    if (!endpoint) endpoint = endpoint_from_class(idx, loc);
    const PciNode& me = t_.nodes[idx];
    if (!endpoint && me.kind == PciNode::Kind::Device && !cls && !me.ids_known) ++unknown_devices_;
  }

  PciNode pci_node(const pugi::xml_node& pci, int parent) {
    PciNode n;
    n.kind = PciNode::Kind::Device;
    n.parent = parent;
    auto busid = pci.attribute("busid");
    n.address = PciAddress::parse(ascii::trim(busid.value()));
    if (!n.address) {
      n.label = busid ? std::string(busid.value()).substr(0, 64) : std::string("pci?");
      t_.notes.push_back("<pci busid=\"" + n.label + "\">: not a PCI address");
    }
    auto vendor = parse_id16(pci, "vendor"), device = parse_id16(pci, "device");
    n.ids_known = vendor && device;
    n.vendor = vendor.value_or(0);
    n.device = device.value_or(0);
    n.subsystem_vendor = parse_id16(pci, "subsystem_vendor").value_or(0);
    n.subsystem_device = parse_id16(pci, "subsystem_device").value_or(0);
    n.pci_class = parse_class(pci).value_or(0);
    // Same text as sysfs max_link_speed/width; width 0 is "unknown" for
    // NCCL too (it then assumes x16).
    n.link.max_gts = parse_link_speed(pci.attribute("link_speed").value());
    n.link.max_width = parse_link_width(pci.attribute("link_width").value());
    return n;
  }

  // Children of one <pci>: nested <pci>, <gpu>, <nic>. Returns true when the
  // element itself became an endpoint.
  bool read_children(const pugi::xml_node& pci, int idx, const Locality& loc, int depth) {
    bool endpoint = false;
    for (auto child : pci.children()) {
      if (child.type() != pugi::node_element) continue;
      std::string_view name = child.name();
      if (name == "pci") {
        read_pci(child, idx, loc, depth + 1);
      } else if (name == "gpu") {
        add_gpu(child, idx, loc);
        endpoint = true;
      } else if (name == "nic") {
        read_nic(child, idx, t_.nodes[idx].address, loc);
        endpoint = true;
      } else if (name == "pcilink") {
        pcilinks_ = true;
      } else {
        ignored_.insert("<" + std::string(name) + "> under <pci>");
      }
    }
    return endpoint;
  }

  Endpoint endpoint_at(int idx, DeviceRole role, const Locality& loc) const {
    Endpoint e;
    e.role = role;
    e.node = idx;
    e.address = t_.nodes[idx].address;
    e.locality = loc;
    return e;
  }

  void add_gpu(const pugi::xml_node& gpu, int idx, const Locality& loc) {
    Pending p{endpoint_at(idx, DeviceRole::Gpu, loc), std::nullopt, order_++};
    for (auto a : gpu.attributes()) p.e.attributes[a.name()] = a.value();
    p.dev = parse_decimal(gpu.attribute("dev").value());
    for (auto child : gpu.children()) {
      std::string_view name = child.name();
      if (name == "nvlink") {
        NvLinkPeer l;
        l.target = child.attribute("target").value();
        auto count = parse_decimal(child.attribute("count").value());
        l.count = count && *count > 0 && *count < 1000 ? static_cast<int>(*count) : 0;
        if (auto c = parse_number(child.attribute("tclass").value()); c && *c <= 0xffffff)
          l.target_class = static_cast<uint32_t>(*c);
        p.e.nvlinks.push_back(std::move(l));
      } else if (name == "c2c") {
        p.e.attributes["c2c_bw"] = child.attribute("bw").value();
        p.e.attributes["c2c_count"] = child.attribute("count").value();
      }
    }
    gpus_.push_back(std::move(p));
  }

  // One endpoint per <net>: NCCL numbers net devices, not PCI functions.
  void read_nic(const pugi::xml_node& nic, int idx, const std::optional<PciAddress>& addr, const Locality& loc) {
    bool any = false;
    for (auto net : nic.children("net")) {
      any = true;
      Pending p{endpoint_at(idx, DeviceRole::Nic, loc), std::nullopt, order_++};
      p.e.address = addr;
      for (auto a : net.attributes())
        if (std::string_view(a.name()) != "name") p.e.attributes[a.name()] = a.value();
      p.dev = parse_decimal(net.attribute("dev").value());
      p.e.name = net.attribute("name").value();
      if (p.e.name.empty()) p.e.name = addr ? addr->str() : "net" + std::string(net.attribute("dev").value());
      // A net device without a PCI function (hv_netvsc, virtual) is what
      // NCCL hangs off the CPU node; it cannot be an RDMA HCA.
      if (!addr) {
        p.e.rdma_device = false;
        no_pci_nets_.push_back(p.e.name);
      }
      if (!p.dev) t_.notes.push_back("net " + p.e.name + " has no dev attribute: NCCL ignores it");
      nics_.push_back(std::move(p));
    }
    if (!any && addr) nics_.push_back({named_by_bus(endpoint_at(idx, DeviceRole::Nic, loc)), std::nullopt, order_++});
  }

  static Endpoint named_by_bus(Endpoint e) {
    if (e.address) e.name = e.address->str();
    return e;
  }

  // A <pci> without <gpu>/<nic> children (Azure, AWS p4d, OCI B4 files):
  // the class is all there is. Bridges are never endpoints.
  bool endpoint_from_class(int idx, const Locality& loc) {
    const PciNode& n = t_.nodes[idx];
    if (n.kind != PciNode::Kind::Device || n.pci_class == 0) return false;
    uint32_t c = n.pci_class;
    if ((c >> 8) == 0x0680) {
      nvswitches_.push_back({endpoint_at(idx, DeviceRole::NvSwitch, loc), std::nullopt, order_++});
    } else if ((c >> 16) == 0x03) {
      gpus_.push_back({endpoint_at(idx, DeviceRole::Gpu, loc), std::nullopt, order_++});
    } else if ((c >> 16) == 0x02) {
      nics_.push_back({named_by_bus(endpoint_at(idx, DeviceRole::Nic, loc)), std::nullopt, order_++});
      nics_from_class_ = true;
    } else {
      return false;
    }
    return true;
  }

  // Ids: endpoints with NCCL's `dev` index first, in that order (it is the
  // number NCCL logs: GPU dev / NET/IB/<dev>); the rest by bus id, then file
  // order. The same rule serves GPUs, NICs and NVSwitches.
  static void number(std::vector<Pending>& list, const std::string& prefix, std::vector<Endpoint>& out) {
    std::stable_sort(list.begin(), list.end(), [](const Pending& a, const Pending& b) {
      auto key = [](const Pending& p) {
        return std::make_tuple(p.dev ? 0 : 1, p.dev.value_or(0), p.e.address ? 0 : 1,
                               p.e.address.value_or(PciAddress{}), p.order);
      };
      return key(a) < key(b);
    });
    for (std::size_t i = 0; i < list.size(); ++i) {
      list[i].e.id = prefix + std::to_string(i);
      out.push_back(std::move(list[i].e));
    }
  }

  void finish() {
    number(gpus_, "GPU", t_.endpoints);
    number(nvswitches_, "NVS", t_.endpoints);
    number(nics_, "NIC", t_.endpoints);
    t_.numa_count = static_cast<int>(numa_ids_.size());
    add_notes();
  }

  void add_notes() {
    for (const auto& n : no_pci_nets_)
      t_.notes.push_back(n + " has no PCI device (attached directly to a CPU node): not a GPUDirect RDMA candidate");
    if (unknown_devices_ > 0)
      t_.notes.push_back(std::to_string(unknown_devices_) +
                         " PCI devices without class or vendor: identity unknown (not counted as GPUs or NICs)");
    if (classless_switches_ > 0)
      t_.notes.push_back(std::to_string(classless_switches_) +
                         " <pci> elements without class hold other <pci> elements: taken as PCIe switches");
    if (nics_from_class_)
      t_.notes.push_back("some NICs have no <nic>/<net> element: found by PCI class, named by bus id");
    if (pcilinks_)
      t_.notes.push_back(
          "<pcilink> (Broadcom virtual switch links) present: NCCL may see PXB where this tree says PHB");
    if (t_.nodes.empty()) t_.notes.push_back("no <cpu> elements: the topology is empty");
    for (const auto& what : ignored_) t_.notes.push_back("ignored " + what);
  }

  std::string source_;
  Topology t_;
  std::vector<Pending> gpus_, nics_, nvswitches_;
  std::vector<std::string> no_pci_nets_;
  std::set<std::string> ignored_;
  std::set<int> numa_ids_;
  std::size_t order_ = 0;
  int unknown_devices_ = 0, classless_switches_ = 0;
  bool nics_from_class_ = false, pcilinks_ = false;
};

// Checks that need no XML parser: empty text and binary data.
void check_text(std::string_view text, const std::string& source) {
  if (ascii::trim(text).empty())
    throw InputError(source, "empty file, expected NCCL topology XML (<system version=\"1\">)");
  auto nul = text.find('\0');
  if (nul != std::string_view::npos)
    throw InputError(source, "binary data (NUL byte at offset " + std::to_string(nul) + "), not NCCL topology XML");
}

std::string wrong_root(std::string_view name) {
  if (name == "topology") return "this is hwloc XML (<topology>), not NCCL topology XML (<system version=\"1\">)";
  if (name == "graphs") return "this is an NCCL graph file (<graphs>, NCCL_GRAPH_DUMP_FILE), not a topology file";
  return "root element is <" + std::string(name.substr(0, 64)) +
         ">, expected <system version=\"1\"> (NCCL topology XML)";
}

void check_version(const pugi::xml_node& system, const std::string& source) {
  auto version = system.attribute("version");
  if (!version) throw InputError(source, "<system> has no version attribute; NCCL needs version=\"1\"");
  auto v = parse_decimal(version.value());
  if (v && *v == 1) return;
  std::string problem = "unsupported NCCL topology XML version \"" + std::string(version.value()).substr(0, 32) +
                        "\" (NCCL reads version 1 only";
  if (v && *v == 2) problem += "; version 2 is RCCL's format";
  throw InputError(source, problem + ")");
}

}  // namespace

// True when the first element (after an XML declaration, comments, a
// DOCTYPE and white space) is <system>. Cheap: no parse.
bool looks_like_nccl_xml(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    std::string_view rest = text.substr(i);
    std::string_view close;
    if (rest.starts_with("<?"))
      close = "?>";
    else if (rest.starts_with("<!--"))
      close = "-->";
    else if (rest.starts_with("<!"))
      close = ">";
    else
      break;
    std::size_t end = rest.find(close);
    if (end == std::string_view::npos) return false;
    i += end + close.size();
  }
  std::string_view rest = text.substr(std::min(i, text.size()));
  if (!rest.starts_with("<system")) return false;
  if (rest.size() == 7) return false;
  char c = rest[7];
  return c == '>' || c == '/' || std::isspace(static_cast<unsigned char>(c));
}

// Model names from pci.ids for devices whose ids the file records, as the
// sysfs reader gives them.
void name_models(Topology& t) {
  for (auto& e : t.endpoints) {
    if (!e.model.empty() || e.node < 0) continue;
    const PciNode& n = t.nodes[e.node];
    if (n.ids_known && n.kind == PciNode::Kind::Device) e.model = pci_device_name(n.vendor, n.device);
  }
}

Topology read_nccl_xml(std::string_view text, const std::string& source_name) {
  check_text(text, source_name);
  pugi::xml_document doc;
  auto result = doc.load_buffer(text.data(), text.size(), pugi::parse_default, pugi::encoding_utf8);
  if (result.status == pugi::status_no_document_element)
    throw InputError(source_name, "no XML element found, expected <system version=\"1\">");
  if (!result) {
    std::string where = " at byte " + std::to_string(result.offset);
    // A cut-off file fails inside its last, incomplete tag.
    auto last = text.find_last_not_of(" \t\r\n");
    if (last != std::string_view::npos && static_cast<std::size_t>(result.offset) + 64 >= last)
      where += " (near the end of the input: truncated file?)";
    throw InputError(source_name, std::string("malformed XML: ") + result.description() + where);
  }
  pugi::xml_node root = doc.document_element();
  if (!root) throw InputError(source_name, "no XML element found, expected <system version=\"1\">");
  if (std::string_view(root.name()) != "system") throw InputError(source_name, wrong_root(root.name()));
  check_version(root, source_name);
  Topology t = Reader(source_name).read(root);
  name_models(t);
  return t;
}

}  // namespace gdrcheck
