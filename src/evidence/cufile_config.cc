#include "evidence/cufile_config.h"

#include "host/untrusted_json.h"

namespace gdrcheck {
namespace {

using nlohmann::json;

const json* at(const json& j, std::initializer_list<const char*> path) {
  const json* p = &j;
  for (const char* key : path) {
    if (!p->is_object()) return nullptr;
    auto it = p->find(key);
    if (it == p->end()) return nullptr;
    p = &*it;
  }
  return p;
}

std::optional<bool> flag(const json& j, std::initializer_list<const char*> path, const std::string& name,
                         CufileConfig& c) {
  const json* v = at(j, path);
  if (!v) return std::nullopt;
  if (v->is_boolean()) return v->get<bool>();
  c.problems.push_back(name + ": expected true or false, not " + json_shown(*v));
  return std::nullopt;
}

std::vector<std::string> strings(const json& j, std::initializer_list<const char*> path, const std::string& name,
                                 CufileConfig& c) {
  std::vector<std::string> out;
  const json* v = at(j, path);
  if (!v) return out;
  if (!v->is_array()) {
    c.problems.push_back(name + ": expected a list, not " + json_shown(*v));
    return out;
  }
  for (const auto& item : *v)
    if (item.is_string())
      out.push_back(item.get<std::string>());
    else
      c.problems.push_back(name + ": expected strings, not " + json_shown(item));
  return out;
}

// The routes that turn PCI-P2PDMA on, besides the global key (both are needed).
void p2pdma_routes(const json& j, CufileConfig& c) {
  for (auto route : {std::pair{"block", "nvme"}, std::pair{"block", "nvmeof"}, std::pair{"block", "raid"},
                     std::pair{"fs", "virtiofs"}}) {
    std::string name = std::string(route.first) + "." + route.second;
    if (flag(j, {route.first, route.second, "use_pci_p2pdma"}, name + ".use_pci_p2pdma", c).value_or(false))
      c.p2pdma_routes.push_back(name);
  }
}

void read_properties(const json& j, CufileConfig& c) {
  // "use_compat_mode" is the older name of allow_compat_mode.
  for (const char* key : {"allow_compat_mode", "use_compat_mode"})
    if (auto v = flag(j, {"properties", key}, std::string("properties.") + key, c); v && !c.allow_compat_mode) {
      c.allow_compat_mode = v;
      c.allow_compat_key = std::string("properties.") + key;
    }
  c.force_compat_mode = flag(j, {"properties", "force_compat_mode"}, "properties.force_compat_mode", c);
  c.use_pci_p2pdma = flag(j, {"properties", "use_pci_p2pdma"}, "properties.use_pci_p2pdma", c);
  c.gds_rdma_write_support = flag(j, {"properties", "gds_rdma_write_support"}, "properties.gds_rdma_write_support", c);
  c.rdma_dev_addr_list = strings(j, {"properties", "rdma_dev_addr_list"}, "properties.rdma_dev_addr_list", c);
  if (const json* v = at(j, {"properties", "rdma_peer_type"})) {
    if (v->is_string())
      c.rdma_peer_type = v->get<std::string>();
    else
      c.problems.push_back("properties.rdma_peer_type: expected a string, not " + json_shown(*v));
  }
}

}  // namespace

CufileConfig parse_cufile_config(std::string_view text, const std::string& file) {
  CufileConfig c;
  c.file = file;
  json j;
  try {
    UntrustedJsonOptions options;
    options.allow_comments = true;  // the shipped file is full of // comments
    j = parse_untrusted_json(text, file, "cuFile configuration", options);
  } catch (const JsonSyntaxError& e) {
    c.error = e.detail();
    c.syntax_error = true;
    return c;
  } catch (const InputError& e) {
    c.error = e.problem();
    return c;
  }
  if (!j.is_object()) {
    c.error = "not a JSON object";
    c.syntax_error = true;
    return c;
  }
  c.parsed = true;
  read_properties(j, c);
  p2pdma_routes(j, c);
  for (const char* list : {"drivers", "devices", "mounts", "filesystems"})
    if (auto items = strings(j, {"denylist", list}, std::string("denylist.") + list, c); !items.empty())
      c.denylist[list] = items;
  return c;
}

}  // namespace gdrcheck
