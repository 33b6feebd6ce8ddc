#include "cluster/fingerprint.h"

#include <cstdio>
#include <functional>
#include <map>
#include <set>

namespace gdrcheck {
namespace {

using nlohmann::json;

// {"H100": 8, "A100": 1} -> "1x A100, 8x H100" (keys sorted: stable text).
std::string counted(const std::map<std::string, int>& counts) {
  if (counts.empty()) return "none";
  std::string out;
  for (const auto& [what, n] : counts) out += (out.empty() ? "" : ", ") + std::to_string(n) + "x " + what;
  return out;
}

std::string joined(const std::set<std::string>& items, const std::string& empty) {
  if (items.empty()) return empty;
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

// Model counts from the report's inventory (family names such as "H100",
// "ConnectX-7"), else from the full model strings.
std::string models(const json& inventory, const char* section, const std::vector<std::string>& raw) {
  std::map<std::string, int> counts;
  const json* m = nullptr;
  if (inventory.is_object() && inventory.contains(section) && inventory[section].is_object() &&
      inventory[section].contains("models") && inventory[section]["models"].is_object())
    m = &inventory[section]["models"];
  if (m) {
    for (auto it = m->begin(); it != m->end(); ++it)
      if (it->is_number_integer()) counts[it.key()] = it->get<int>();
  } else {
    for (const auto& r : raw) ++counts[r.empty() ? "unknown model" : r];
  }
  return counted(counts);
}

std::string rate_text(const std::optional<double>& rate) {
  if (!rate) return "unknown rate";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%gG", *rate);
  return buf;
}

std::string port_rates(const NodeReportFacts& r) {
  std::map<std::string, int> counts;
  for (const auto& p : r.ports) ++counts[rate_text(p.rate_gbps)];
  return counted(counts);
}

std::string port_states(const NodeReportFacts& r) {
  std::map<std::string, int> counts;
  for (const auto& p : r.ports) ++counts[p.state.empty() ? "unknown" : p.state];
  return counted(counts);
}

std::string pair_classes(const NodeReportFacts& r) {
  std::map<std::string, int> counts;
  for (const auto& p : r.pairs) ++counts[(p.path.empty() ? "none" : p.path) + "/" + p.nccl_path];
  return counted(counts);
}

std::string nccl_settings(const NodeReportFacts& r) {
  if (!r.nccl_settings) return "unknown";
  std::set<std::string> items;
  for (const auto& [name, value] : *r.nccl_settings) items.insert(name + "=" + value);
  return joined(items, "none");
}

// ACS as the node's own check judged it: which bridges redirect P2P.
std::string acs_state(const NodeReportFacts& r) {
  std::set<std::string> redirecting;
  bool any = false, unknown = false;
  for (const auto& f : r.findings) {
    if (f.check != "acs") continue;
    any = true;
    if (f.status == Status::Critical) redirecting.insert(f.subject);
    if (f.status == Status::Unknown) unknown = true;
  }
  if (!redirecting.empty()) return "redirect on " + joined(redirecting, "");
  if (unknown) return "unknown";
  return any ? "no redirect" : "not checked";
}

std::string iommu_state(const NodeReportFacts& r) {
  if (r.iommu_group_types && !r.iommu_group_types->empty())
    return joined(std::set<std::string>(r.iommu_group_types->begin(), r.iommu_group_types->end()), "");
  // Older kernels have no group types: the node's own verdict says it.
  for (const auto& f : r.findings)
    if (f.check == "iommu") return f.summary;
  return "unknown";
}

// Values are compared and printed for every node that differs: a longer
// value (a hostile kernel string, thousands of firmware versions) is cut,
// keeping its size and a hash so different values still differ.
std::string bounded(std::string value) {
  if (value.size() <= kMaxFingerprintValue) return value;
  char tail[64];
  std::snprintf(tail, sizeof tail, "... (%zu bytes, hash %016zx)", value.size(), std::hash<std::string>{}(value));
  std::size_t size = kMaxFingerprintValue;
  while (size > 0 && (static_cast<unsigned char>(value[size]) & 0xC0) == 0x80) --size;
  value.resize(size);
  return value + tail;
}

}  // namespace

const std::vector<std::string>& fingerprint_aspects() {
  static const std::vector<std::string> aspects = {"GPUs",         "NICs",          "port rates", "port states",
                                                   "pair classes", "driver",        "firmware",   "kernel",
                                                   "peer memory",  "NCCL settings", "ACS",        "IOMMU"};
  return aspects;
}

Fingerprint fingerprint(const NodeReportFacts& r) {
  const auto& a = fingerprint_aspects();
  Fingerprint f = {{a[0], models(r.inventory, "gpus", r.gpu_models)},
                   {a[1], models(r.inventory, "nics", r.nic_models)},
                   {a[2], port_rates(r)},
                   {a[3], port_states(r)},
                   {a[4], pair_classes(r)},
                   {a[5], r.driver.value_or("unknown")},
                   {a[6], joined(std::set<std::string>(r.firmware.begin(), r.firmware.end()), "none")},
                   {a[7], r.kernel.value_or("unknown")},
                   {a[8], r.peer_memory.value_or("unknown")},
                   {a[9], nccl_settings(r)},
                   {a[10], acs_state(r)},
                   {a[11], iommu_state(r)}};
  for (auto& aspect : f) aspect.second = bounded(std::move(aspect.second));
  return f;
}

}  // namespace gdrcheck
