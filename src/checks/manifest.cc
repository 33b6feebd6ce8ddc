#include "checks/manifest.h"

#include <initializer_list>
#include <map>
#include <set>

#include "host/device_ids.h"
#include "host/driver_info.h"
#include "host/sysfs_values.h"
#include "host/untrusted_json.h"
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

// Values as evidence: found values come from the host, so everything
// beyond printable ASCII is escaped rather than reaching a terminal.
std::string evidence_text(const json& v) {
  return v.dump(-1, ' ', true, json::error_handler_t::replace);
}

Finding difference(const std::string& subject, const std::string& what, const json& want, const json& got) {
  return problem(
      "manifest", subject, Status::Critical, what + " differs from the manifest",
      {"expected " + evidence_text(want), "found " + evidence_text(got)},
      "bring the node back to the site's expected configuration, or update the manifest if the change is intended");
}

void compare(std::vector<Finding>& out, const json& want, const json& got, const std::string& key,
             const std::string& subject, const std::string& what) {
  if (!want.contains(key)) return;
  const json& g = got.contains(key) ? got.at(key) : json(nullptr);
  if (want.at(key) != g) out.push_back(difference(subject, what, want.at(key), g));
}

// ---- the manifest's shape ----------------------------------------------------

// No node has anywhere near this many GPUs, NICs or ports; a larger count
// is a mistake, not an expectation.
constexpr long long kMaxCount = 1000000;

// Thrown inside the shape check only: the first thing wrong.
struct ShapeProblem {
  std::string problem;
};

[[noreturn]] void wrong(const std::string& name, const std::string& expected, const json& v) {
  throw ShapeProblem{"\"" + name + "\" must be " + expected + ", not " + json_value_description(v)};
}

// "gpus" + "H100" -> "gpus.H100", with the key shown safely.
std::string member_path(const std::string& outer, const std::string& key) {
  std::string shown = json_shown(key);
  return outer + "." + shown.substr(1, shown.size() - 2);
}

void only_keys(const json& obj, const std::string& where, std::initializer_list<const char*> known) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool ok = false;
    for (const char* k : known) ok = ok || it.key() == k;
    if (ok) continue;
    std::string list;
    for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    throw ShapeProblem{(where.empty() ? "" : "in \"" + where + "\": ") + "unknown key " + json_shown(it.key()) +
                       " (known: " + list + ")"};
  }
}

const json& object_at(const json& v, const std::string& name) {
  if (!v.is_object()) wrong(name, "an object", v);
  return v;
}

void count_at(const json& v, const std::string& name) {
  if (WholeNumber n = read_whole_number(v, name, 0, kMaxCount); !n.value) throw ShapeProblem{n.problem};
}

// {"H100": 8}: names to counts.
void counts_at(const json& v, const std::string& name) {
  for (auto it = object_at(v, name).begin(); it != v.end(); ++it) count_at(*it, member_path(name, it.key()));
}

void strings_at(const json& v, const std::string& name) {
  if (!v.is_array()) wrong(name, "an array of strings", v);
  for (const json& s : v)
    if (!s.is_string()) wrong(name, "an array of strings", s);
}

void text_or_null_at(const json& v, const std::string& name) {
  if (!v.is_string() && !v.is_null()) wrong(name, "a string or null", v);
}

void check_devices(const json& m, const char* section, bool with_firmware) {
  if (!m.contains(section)) return;
  const json& s = object_at(m.at(section), section);
  if (with_firmware)
    only_keys(s, section, {"count", "models", "firmware"});
  else
    only_keys(s, section, {"count", "models"});
  std::string name = section;
  if (s.contains("count")) count_at(s.at("count"), name + ".count");
  if (s.contains("models")) counts_at(s.at("models"), name + ".models");
  if (s.contains("firmware")) strings_at(s.at("firmware"), name + ".firmware");
}

void check_ports(const json& m) {
  if (!m.contains("ports")) return;
  const json& s = object_at(m.at("ports"), "ports");
  only_keys(s, "ports", {"rate_gbps", "link_layer"});
  if (s.contains("rate_gbps")) counts_at(s.at("rate_gbps"), "ports.rate_gbps");
  if (s.contains("link_layer")) strings_at(s.at("link_layer"), "ports.link_layer");
}

// {"GPU0": {"nic": "mlx5_0", "path": "PXB"}}
void check_pairs(const json& m) {
  if (!m.contains("pairs")) return;
  const json& s = object_at(m.at("pairs"), "pairs");
  for (auto it = s.begin(); it != s.end(); ++it) {
    std::string name = member_path("pairs", it.key());
    const json& pair = object_at(*it, name);
    only_keys(pair, name, {"nic", "path"});
    for (const char* k : {"nic", "path"})
      if (pair.contains(k)) text_or_null_at(pair.at(k), name + "." + k);
  }
}

// What the manifest asks to compare, counted as check_manifest compares.
std::size_t expectations(const json& m) {
  std::size_t n = m.contains("driver");
  for (const char* section : {"gpus", "nics", "ports", "pairs"})
    if (m.contains(section)) n += m.at(section).size();
  return n;
}

}  // namespace

json make_manifest(const NodeReport& r, const HostState& h) {
  return observed(r, h);
}

std::string manifest_shape_problem(const json& m) {
  try {
    if (!m.is_object()) return "not a JSON object";
    only_keys(m, "", {"schema", "gpus", "nics", "ports", "pairs", "driver"});
    if (m.contains("schema") && !m.at("schema").is_string()) wrong("schema", "a string", m.at("schema"));
    check_devices(m, "gpus", false);
    check_devices(m, "nics", true);
    check_ports(m);
    check_pairs(m);
    if (m.contains("driver")) text_or_null_at(m.at("driver"), "driver");
  } catch (const ShapeProblem& p) {
    return p.problem;
  }
  return "";
}

void validate_manifest(const json& m, const std::string& source) {
  if (!m.is_object()) throw InputError(source, "not a JSON object");
  const json* schema = m.contains("schema") ? &m.at("schema") : nullptr;
  if (!schema || *schema != "gdrcheck.manifest/1")
    throw InputError(source,
                     "\"schema\" must be \"gdrcheck.manifest/1\" (write one with gdrcheck node --write-manifest)");
  if (std::string problem = manifest_shape_problem(m); !problem.empty()) throw InputError(source, problem);
  // Every key is optional, so a manifest naming nothing would pass every
  // node while its author believes they are checked.
  if (expectations(m) == 0) throw InputError(source, "no expectations (an empty manifest checks nothing)");
}

json parse_manifest(std::string_view text, const std::string& source) {
  json m = parse_untrusted_json(text, source, "manifest");
  validate_manifest(m, source);
  return m;
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
