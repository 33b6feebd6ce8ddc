#include "host/nvme_controllers.h"

#include <regex>

#include "host/basename_of.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kMaxControllers = 1024;

}  // namespace

NvmeController read_nvme_controller(const Root& root, const std::string& name) {
  NvmeController c;
  c.name = name;
  const std::string base = "/sys/class/nvme/" + name;
  if (FileRead t = root.read(base + "/transport", 4096); t.ok()) {
    c.transport = t.trimmed();
    c.evidence.push_back(base + "/transport = " + c.transport);
  } else {
    c.evidence.push_back(t.reason());
  }
  if (FileRead m = root.read(base + "/model", 4096); m.ok()) c.model = m.trimmed();
  if (c.transport == "pcie")
    if (auto fn = root.resolve(base + "/device"))
      if ((c.pci = PciAddress::parse(basename_of(*fn)))) c.evidence.push_back(base + "/device -> " + c.pci->str());
  return c;
}

std::vector<NvmeController> read_nvme_controllers(const Root& root) {
  static const std::regex name_re("nvme[0-9]+");
  std::vector<NvmeController> out;
  for (const auto& name : root.list("/sys/class/nvme")) {
    if (!std::regex_match(name, name_re) || out.size() >= kMaxControllers) continue;
    out.push_back(read_nvme_controller(root, name));
  }
  return out;
}

void name_nvme_endpoints(Topology& t, const std::vector<NvmeController>& controllers) {
  for (auto& e : t.endpoints) {
    if (e.role != DeviceRole::Nvme || !e.address) continue;
    for (const auto& c : controllers)
      if (c.pci && *c.pci == *e.address) e.name = c.name;
  }
}

}  // namespace gdrcheck
