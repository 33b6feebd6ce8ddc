#include "host/pci_names.h"

#include <mutex>

extern "C" {
#include <pci/pci.h>
}

namespace gdrcheck {
namespace {

// A missing or unreadable pci.ids must only mean "no name": libpci reports
// it through the warning hook, which is silenced. (The error hook is for
// fatal conditions such as allocation failure and must not return.)
void quiet(char*, ...) {}

pci_access* name_access() {
  static std::once_flag once;
  static pci_access* access = nullptr;
  std::call_once(once, [] {
    access = pci_alloc();
    if (!access) return;
    access->warning = quiet;
    access->debug = quiet;
    // Names only: never scan the bus (the host may not be the one checked),
    // and only from pci.ids: udev's hwdb would make the answer depend on
    // this machine and costs a udev context per process.
    pci_set_param(access, const_cast<char*>("hwdb.disable"), const_cast<char*>("1"));
  });
  return access;
}

std::string lookup(int flags, uint16_t vendor, uint16_t device) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  pci_access* a = name_access();
  if (!a) return "";
  char buf[256];
  const char* name = pci_lookup_name(a, buf, sizeof buf, flags | PCI_LOOKUP_NO_NUMBERS, vendor, device);
  return name ? std::string(name) : std::string();
}

}  // namespace

std::string pci_device_name(uint16_t vendor, uint16_t device) {
  return lookup(PCI_LOOKUP_DEVICE, vendor, device);
}

std::string pci_vendor_name(uint16_t vendor) {
  return lookup(PCI_LOOKUP_VENDOR, vendor, 0);
}

}  // namespace gdrcheck
