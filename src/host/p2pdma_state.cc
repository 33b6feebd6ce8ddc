#include "host/p2pdma_state.h"

#include <sstream>

namespace gdrcheck {
namespace {

// kallsyms of a large kernel is ~20 MB; the symbols are searched, not kept.
constexpr std::size_t kMaxKallsyms = 64u << 20;

// " p2pdma_pgmap_ops" or " pci_p2pdma_add_resource" as a whole symbol name
// (kallsyms: "address type name [module]"; names are readable without root).
bool has_p2pdma_symbol(const std::string& text) {
  for (const char* sym : {" p2pdma_pgmap_ops", " pci_p2pdma_add_resource"}) {
    for (auto at = text.find(sym); at != std::string::npos; at = text.find(sym, at + 1)) {
      auto end = at + std::string(sym).size();
      if (end == text.size() || text[end] == '\n' || text[end] == '\t' || text[end] == ' ') return true;
    }
  }
  return false;
}

void read_kernel(const Root& root, P2pdmaState& s) {
  FileRead kallsyms = root.read("/proc/kallsyms", kMaxKallsyms);
  if (kallsyms.ok() && !kallsyms.content.empty()) {
    s.kernel = has_p2pdma_symbol(kallsyms.content);
    s.kernel_evidence = std::string("/proc/kallsyms: ") +
                        (*s.kernel ? "p2pdma symbols present" : "no p2pdma_pgmap_ops or pci_p2pdma_add_resource");
    return;
  }
  FileRead release = root.read("/proc/sys/kernel/osrelease", 256);
  std::string looked = kallsyms.reason();
  if (release.ok())
    for (const std::string& path :
         {"/boot/config-" + release.trimmed(), "/lib/modules/" + release.trimmed() + "/config"}) {
      FileRead config = root.read(path, 4u << 20);
      if (!config.ok()) {
        looked += "; " + config.reason();
        continue;
      }
      s.kernel = config.content.find("\nCONFIG_PCI_P2PDMA=y") != std::string::npos;
      s.kernel_evidence = path + ": " + (*s.kernel ? "CONFIG_PCI_P2PDMA=y" : "CONFIG_PCI_P2PDMA not set");
      return;
    }
  s.kernel_evidence = looked;
}

Fact registry_line(const Root& root) {
  Fact f = {"/proc/driver/nvidia/params", std::nullopt, ""};
  FileRead r = root.read(f.path, 256 * 1024);
  if (!r.ok()) {
    f.problem = r.problem();
    return f;
  }
  std::istringstream in(r.content);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("RegistryDwords:", 0) == 0) {
      f.value = line;
      return f;
    }
  f.value = "RegistryDwords: (not set)";
  return f;
}

}  // namespace

P2pdmaState read_p2pdma_state(const Root& root) {
  P2pdmaState s;
  read_kernel(root, s);
  s.nvme_multipath = read_fact(root, "/sys/module/nvme_core/parameters/multipath");
  s.registry = registry_line(root);
  if (FileRead cpu = root.read("/proc/cpuinfo", 256 * 1024); cpu.ok())
    s.x86 = cpu.content.find("vendor_id") != std::string::npos;
  return s;
}

}  // namespace gdrcheck
