// `iommu`: whether DMA from the NIC to the GPU is translated. Identity
// (passthrough) domains pass; DMA and DMA-FQ (translated) break or slow
// GPUDirect on x86. The per-group `type` file (Linux >= 5.11) decides; on
// older kernels the command line and /sys/class/iommu do (platform-spec §2).
#include <algorithm>
#include <sstream>

#include "checks/node_evidence.h"
#include "host/capture_extent.h"

namespace gdrcheck {
namespace {

std::vector<std::string> tokens(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

bool has(const std::vector<std::string>& toks, const std::string& t) {
  return std::find(toks.begin(), toks.end(), t) != toks.end();
}

std::string iommu_fix_for(const HostState& h) {
  auto toks = tokens(h.cmdline.value.value_or(""));
  bool amd = false;
  for (const auto& u : h.iommu_units) amd |= u.rfind("ivhd", 0) == 0;
  for (const auto& t : toks) amd |= t.rfind("amd_iommu", 0) == 0;
  std::string params = amd ? "amd_iommu=on iommu=pt" : "intel_iommu=on iommu=pt";
  return "boot with " + params +
         " (passthrough keeps interrupt remapping) or disable the IOMMU, then check "
         "/sys/kernel/iommu_groups/*/type reads identity";
}

// Kernels without the per-group type file (< 5.11): mirror gds-diag's rule.
Finding from_cmdline(const NodeEvidence& e, const std::string& subject) {
  const HostState& h = e.host;
  std::vector<std::string> ev{
      h.cmdline.evidence(),
      "/sys/class/iommu: " +
          (h.iommu_units.empty() ? std::string("no units") : std::to_string(h.iommu_units.size()) + " units")};
  if (!h.cmdline.known())
    return problem("iommu", subject, Status::Unknown, "IOMMU mode unknown: no /proc/cmdline and no group type", ev,
                   copy_advice({"/proc/cmdline"}));
  auto toks = tokens(*h.cmdline.value);
  if (has(toks, "intel_iommu=off") || has(toks, "amd_iommu=off") || has(toks, "iommu=off"))
    return ok("iommu", subject, "IOMMU disabled on the kernel command line", ev);
  if (has(toks, "iommu=pt") || has(toks, "iommu.passthrough=1"))
    return ok("iommu", subject, "IOMMU in passthrough mode (iommu=pt)", ev);
  if (has(toks, "intel_iommu=on") || has(toks, "amd_iommu=on") || !h.iommu_units.empty())
    return problem("iommu", subject, Status::Critical, "IOMMU translating DMA (on without iommu=pt)", ev,
                   iommu_fix_for(h));
  // A kernel built with the IOMMU on by default needs no parameter: only the
  // units tell, and a root without /sys/class/iommu does not show them.
  if (auto area = h.not_captured("/sys/class/iommu")) {
    ev.push_back(not_captured_evidence(*area));
    return problem("iommu", subject, Status::Unknown,
                   "IOMMU mode unknown: nothing on the command line, and IOMMU units not captured", ev,
                   copy_advice({*area, "/sys/kernel/iommu_groups"}));
  }
  return ok("iommu", subject, "no IOMMU active (no /sys/class/iommu units, no passthrough needed)", ev);
}

Finding one_device(const NodeEvidence& e, const Endpoint& d, const PciFunctionState& f) {
  std::string subject = endpoint_label(d);
  if (!f.iommu_group) return from_cmdline(e, subject);
  std::vector<std::string> ev{"iommu_group " + std::to_string(*f.iommu_group), f.iommu_group_type.evidence()};
  if (!f.iommu_group_type.known()) return from_cmdline(e, subject);
  const std::string& type = *f.iommu_group_type.value;
  if (type == "identity")
    return ok("iommu", subject, "IOMMU group " + std::to_string(*f.iommu_group) + " is identity (passthrough)", ev);
  if (type == "DMA" || type == "DMA-FQ")
    return problem(
        "iommu", subject, Status::Critical,
        "IOMMU translates this device's DMA (group type " + type + "): GPUDirect traffic is remapped or blocked", ev,
        iommu_fix_for(e.host));
  if (type == "unmanaged")
    return problem("iommu", subject, Status::Warning, "assigned to userspace/VFIO (group type unmanaged)", ev,
                   "check GPUDirect inside the VM this device is passed to");
  return problem("iommu", subject, Status::Critical, "IOMMU group type " + type, ev, iommu_fix_for(e.host));
}

}  // namespace

std::vector<Finding> check_iommu(const NodeEvidence& e) {
  std::vector<Finding> out;
  bool any_group = false;
  for (const auto& [addr, f] : e.host.functions) any_group |= f.iommu_group.has_value();
  // No groups anywhere: one host-level verdict instead of one per device.
  if (!any_group) {
    if (e.has_gpus()) out.push_back(from_cmdline(e, "host"));
    return out;
  }
  std::vector<const Endpoint*> devices;
  for (DeviceRole role : {DeviceRole::Gpu, DeviceRole::Nic})
    for (const Endpoint* d : e.topology.with_role(role)) devices.push_back(d);
  return check_iommu_of(e, devices);
}

std::vector<Finding> check_iommu_of(const NodeEvidence& e, const std::vector<const Endpoint*>& devices) {
  std::vector<Finding> out;
  for (const Endpoint* d : devices) {
    const PciFunctionState* f = e.function(*d);
    if (f) out.push_back(one_device(e, *d, *f));
  }
  return out;
}

}  // namespace gdrcheck
