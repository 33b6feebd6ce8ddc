#include "checks/gds_paths.h"

#include <algorithm>

#include "host/text_format.h"

namespace gdrcheck {
namespace {

// Node-check findings renamed into the gds family.
void as_gds(std::vector<Finding> found, const std::string& id, std::vector<Finding>& out) {
  for (auto& f : found) {
    f.check = id;
    out.push_back(std::move(f));
  }
}

}  // namespace

void GdsPaths::add(const Endpoint* device, const std::vector<const Endpoint*>& gpus) {
  if (std::find(devices.begin(), devices.end(), device) == devices.end()) devices.push_back(device);
  for (const Endpoint* g : gpus) pairs.push_back({g, device});
}

std::string NearestGpus::ids() const {
  std::vector<std::string> names;
  for (const Endpoint* g : gpus) names.push_back(g->id);
  return join(names, ", ") + " (" + best.code() + ")";
}

NearestGpus nearest_gpus(const Topology& t, const Endpoint& device) {
  NearestGpus n;
  n.best.path = SmiPath::Unknown;
  for (const Endpoint* g : t.with_role(DeviceRole::Gpu)) {
    SmiClass c = smi_class(t, *g, device);
    n.evidence.push_back(g->id + " " + c.code() + ": " + printable(c.why));
    if (c.path == SmiPath::Unknown) continue;
    if (n.gpus.empty() || c.path < n.best.path) {
      n.best = c;
      n.gpus = {g};
    } else if (c.path == n.best.path) {
      n.gpus.push_back(g);
    }
  }
  return n;
}

std::vector<Finding> check_gds_paths(const NodeEvidence& e, const GdsPaths& paths) {
  std::vector<Finding> out;
  as_gds(check_acs_between(e, paths.pairs), "gds.acs", out);
  as_gds(check_iommu_of(e, paths.devices), "gds.iommu", out);
  as_gds(check_link_of(e, paths.devices), "gds.link", out);
  return out;
}

}  // namespace gdrcheck
