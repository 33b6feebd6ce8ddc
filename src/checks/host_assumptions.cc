#include "checks/host_assumptions.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "host/text_format.h"

namespace gdrcheck {
namespace {

const AssumableFact* fact_named(const std::string& key) {
  for (const auto& f : assumable_facts())
    if (key == f.key) return &f;
  return nullptr;
}

std::string known_keys() {
  std::string out;
  for (const auto& f : assumable_facts()) out += std::string(out.empty() ? "" : ", ") + f.key;
  return out + ", all";
}

std::string values_text(const AssumableFact& f) {
  std::string out;
  for (const char* v : f.values) out += std::string(out.empty() ? "" : " or ") + v;
  return out;
}

void state(HostAssumptions& a, const std::string& key, const std::string& value) {
  if (key == "all") {
    if (value != "ok") throw std::invalid_argument("'all=" + value + "': all takes ok only");
    for (const auto& f : assumable_facts()) a.stated.emplace(f.key, f.values.front());
    return;
  }
  const AssumableFact* f = fact_named(key);
  if (!f) throw std::invalid_argument("'" + key + "' is not a fact that can be assumed (known: " + known_keys() + ")");
  if (std::none_of(f->values.begin(), f->values.end(), [&](const char* v) { return value == v; }))
    throw std::invalid_argument("'" + key + "=" + value + "': " + key + " is " + values_text(*f));
  auto [it, added] = a.stated.emplace(key, value);
  if (!added && it->second != value)
    throw std::invalid_argument("'" + key + "' stated twice (" + it->second + " and " + value + ")");
}

std::string trimmed(const std::string& s) {
  auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

bool stated_good(const HostAssumptions& a, const AssumableFact& f) {
  const std::string* v = a.find(f.key);
  return v && *v == f.values.front();
}

}  // namespace

const std::vector<AssumableFact>& assumable_facts() {
  static const std::vector<AssumableFact> facts = {
      {"peermem", {"ok", "missing"}, "peer memory (nvidia_peermem or DMA-BUF)", {"peermem"}},
      {"ports", {"active"}, "RDMA ports ACTIVE at the NIC's rate", {"port"}},
      {"acs", {"ok"}, "no ACS redirect between GPUs and NICs", {"acs"}},
      {"iommu", {"ok"}, "IOMMU off or in passthrough", {"iommu"}},
      {"links", {"ok"}, "PCIe links trained at full width and speed", {"link"}},
      {"driver", {"ok"}, "NVIDIA driver loaded with the GPUs bound, RDMA modules loaded", {"driver"}},
  };
  return facts;
}

const std::string* HostAssumptions::find(const std::string& key) const {
  auto it = stated.find(key);
  return it == stated.end() ? nullptr : &it->second;
}

std::string HostAssumptions::text() const {
  std::string out;
  for (const auto& f : assumable_facts())
    if (const std::string* v = find(f.key)) out += (out.empty() ? "" : ",") + std::string(f.key) + "=" + *v;
  return out;
}

HostAssumptions parse_host_assumptions(const std::vector<std::string>& values) {
  HostAssumptions a;
  for (const auto& value : values) {
    std::istringstream items(value);
    for (std::string item; std::getline(items, item, ',');) {
      std::string kv = trimmed(item);
      if (kv.empty()) continue;
      auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == kv.size())
        throw std::invalid_argument("'" + kv + "' is not KEY=VALUE (known keys: " + known_keys() + ")");
      state(a, trimmed(kv.substr(0, eq)), trimmed(kv.substr(eq + 1)));
    }
  }
  return a;
}

void apply_peer_memory_assumption(const HostAssumptions& a, GdrHostFacts& facts) {
  const std::string* v = a.find("peermem");
  facts.stated_peer_memory = v && *v == "missing" ? Tri::No : Tri::Yes;
  facts.stated_by = v ? "--assume peermem=" + *v : "an assumption: a topology file does not show it";
  facts.assumed = v == nullptr;
}

Finding topology_file_host_finding(const HostAssumptions& a, const std::string& file) {
  std::vector<std::string> unstated, suggested, bad, evidence;
  for (const auto& f : assumable_facts()) {
    const std::string* v = a.find(f.key);
    std::string line = std::string(f.key) + ": " + f.what;
    if (!v) {
      unstated.push_back(f.key);
      suggested.push_back(std::string(f.key) + "=" + f.values.front());
    } else if (!stated_good(a, f))
      bad.push_back(std::string(f.key) + "=" + *v);
    evidence.push_back(line + (v ? " (stated: " + *v + ")" : " (not in a topology file)"));
  }
  evidence.insert(evidence.begin(), "topology file: " + file + " (the PCI tree only)");
  if (!bad.empty())
    return problem("host", "host", Status::Critical, "stated for this host: " + join(bad, ", ") + ": GDR cannot work",
                   evidence, "install nvidia_peermem (or use DMA-BUF: open GPU kernel module, kernel 5.12+)");
  if (unstated.empty())
    return ok("host", "host", "stated with --assume: " + a.text() + " (not read: a topology file)", evidence);
  evidence.push_back(
      "the GPUDirect columns take peer memory and every RDMA port as there unless stated "
      "(--assume peermem=missing shows a host without peer memory)");
  return problem("host", "host", Status::Unknown, "not in a topology file: " + join(unstated, ", "), evidence,
                 "run `gdrcheck node` on the machine itself (or on a `gdrcheck snapshot` of it); a planner states "
                 "them with --assume " +
                     join(suggested, ","));
}

}  // namespace gdrcheck
