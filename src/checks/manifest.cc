#include "checks/manifest.h"

#include <map>
#include <set>

#include "host/device_ids.h"
#include "host/driver_info.h"
#include "host/sysfs_values.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

using nlohmann::json;

std::string gpu_model(const NodeReport& r, const Endpoint& g) {
  if (g.node >= 0)
    if (auto info = nvidia_gpu_info(r.topology.nodes[g.node].device, g.model)) return info->family;
  return g.model;
}

std::string nic_model(const NodeReport& r, const Endpoint& n) {
  if (n.node >= 0 && r.topology.nodes[n.node].vendor == 0x15b3)
    if (auto info = mellanox_nic_info(r.topology.nodes[n.node].device)) return info->model;
  return n.model;
}

// The facts a manifest pins, in the manifest's own shape.
json observed(const NodeReport& r, const HostState& h) {
  std::map<std::string, int> gpus, nics;
  for (const Endpoint* g : r.topology.with_role(DeviceRole::Gpu)) ++gpus[gpu_model(r, *g)];
  for (const Endpoint* n : r.topology.with_role(DeviceRole::Nic)) ++nics[nic_model(r, *n)];
  std::set<std::string> firmware, layers;
  std::map<std::string, int> rates;  // "400" -> ports at that rate
  for (const auto& d : h.rdma) {
    if (d.fw_ver.value) firmware.insert(*d.fw_ver.value);
    for (const auto& p : d.ports) {
      if (p.link_layer.value) layers.insert(*p.link_layer.value);
      if (auto rate = parse_ib_rate_gbps(p.rate.value.value_or(""))) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", *rate);
        ++rates[buf];
      }
    }
  }
  json pairs = json::object();
  // From the predictions, not r.pairs: the pair verdicts are made after
  // (and from) the manifest's findings.
  for (const auto& p : r.predictions) {
    const Endpoint* nic = p.nics.empty() ? nullptr : r.topology.find(p.nics.front());
    pairs[p.gpu] = {{"nic", nic ? json(nic->name) : json(nullptr)},
                    {"path", nic ? json(r.paths.smi_at(p.gpu, nic->id).code) : json(nullptr)}};
  }
  auto driver = parse_nvidia_version(h.nvidia_version.value.value_or(""));
  return {{"schema", "gdrcheck.manifest/1"},
          {"gpus", {{"count", r.topology.with_role(DeviceRole::Gpu).size()}, {"models", gpus}}},
          {"nics", {{"count", r.topology.with_role(DeviceRole::Nic).size()}, {"models", nics}, {"firmware", firmware}}},
          {"ports", {{"rate_gbps", rates}, {"link_layer", layers}}},
          {"pairs", pairs},
          {"driver", driver ? json(driver->version) : json(nullptr)}};
}

Finding difference(const std::string& subject, const std::string& what, const json& want, const json& got) {
  return problem(
      "manifest", subject, Status::Critical, what + " differs from the manifest",
      {"expected " + want.dump(), "found " + got.dump()},
      "bring the node back to the site's expected configuration, or update the manifest if the change is intended");
}

void compare(std::vector<Finding>& out, const json& want, const json& got, const std::string& key,
             const std::string& subject, const std::string& what) {
  if (!want.contains(key)) return;
  const json& g = got.contains(key) ? got.at(key) : json(nullptr);
  if (want.at(key) != g) out.push_back(difference(subject, what, want.at(key), g));
}

}  // namespace

json make_manifest(const NodeReport& r, const HostState& h) {
  return observed(r, h);
}

void validate_manifest(const json& m, const std::string& source) {
  if (!m.is_object()) throw InputError(source, "not a JSON object");
  if (m.value("schema", "") != "gdrcheck.manifest/1")
    throw InputError(source,
                     "\"schema\" must be \"gdrcheck.manifest/1\" (write one with gdrcheck node --write-manifest)");
  for (const char* k : {"gpus", "nics", "ports", "pairs"})
    if (m.contains(k) && !m.at(k).is_object()) throw InputError(source, std::string("\"") + k + "\" must be an object");
}

std::vector<Finding> check_manifest(const NodeReport& r, const HostState& h, const json& want) {
  json got = observed(r, h);
  std::vector<Finding> out;
  for (const char* section : {"gpus", "nics", "ports"}) {
    if (!want.contains(section)) continue;
    const json& w = want.at(section);
    for (auto it = w.begin(); it != w.end(); ++it)
      compare(out, w, got.at(section), it.key(), section, std::string(section) + " " + it.key());
  }
  if (want.contains("pairs"))
    for (auto it = want.at("pairs").begin(); it != want.at("pairs").end(); ++it)
      compare(out, want.at("pairs"), got.at("pairs"), it.key(), it.key(), it.key() + "'s NIC and path");
  compare(out, want, got, "driver", "driver", "NVIDIA driver version");
  if (out.empty())
    out.push_back(ok("manifest", "host", "matches the manifest", {"compared: gpus, nics, ports, pairs, driver"}));
  return out;
}

}  // namespace gdrcheck
