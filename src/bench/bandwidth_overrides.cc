#include "bench/bandwidth_overrides.h"

#include <cstdio>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>

#include "host/untrusted_json.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

using nlohmann::json;

constexpr const char* kSchema = "gdrcheck.bandwidth/1";

// Every problem names the file and the place in it ("nic_ceilings[1].rate_gbps").
struct OverridesFile {
  const std::string& file;
  [[noreturn]] void fail(const std::string& where, const std::string& problem) const {
    throw InputError(file, where.empty() ? problem : where + ": " + problem);
  }
};

std::string number_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

void check_only_keys(const OverridesFile& c, const json& obj, const std::string& where,
                     std::initializer_list<const char*> known) {
  for (const auto& item : obj.items()) {
    bool ok = false;
    for (const char* k : known) ok = ok || item.key() == k;
    if (ok) continue;
    std::string list;
    for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    c.fail(where, "unknown key " + json_shown(item.key()) + " (known: " + list + ")");
  }
}

const json& object_or_fail(const OverridesFile& c, const json& v, const std::string& where) {
  if (!v.is_object()) c.fail(where, "expected an object, got " + std::string(v.type_name()));
  return v;
}

double positive_number(const OverridesFile& c, const json& obj, const char* key, const std::string& where) {
  std::string at = where + "." + key;
  if (!obj.contains(key)) c.fail(where, std::string("missing \"") + key + "\"");
  const json& v = obj.at(key);
  if (!v.is_number()) c.fail(at, "expected a number, got " + std::string(v.type_name()));
  double d = v.get<double>();
  if (!(d > 0)) c.fail(at, "must be a positive number, got " + number_text(d));
  return d;
}

// Ratios: a fraction of the expected figure, in (0, 1].
double ratio(const OverridesFile& c, const json& v, const std::string& where) {
  if (!v.is_number()) c.fail(where, "expected a number, got " + std::string(v.type_name()));
  double d = v.get<double>();
  if (!(d > 0 && d <= 1)) c.fail(where, "must be in (0, 1] (a fraction of the expected figure), got " + number_text(d));
  return d;
}

std::string nonempty_string(const OverridesFile& c, const json& obj, const char* key, const std::string& where) {
  if (!obj.contains(key)) c.fail(where, std::string("missing \"") + key + "\"");
  const json& v = obj.at(key);
  if (!v.is_string() || v.get<std::string>().empty())
    c.fail(where + "." + key, "expected a non-empty string, got " + json_shown(v));
  return v.get<std::string>();
}

const json& array_at(const OverridesFile& c, const json& v, const std::string& where) {
  if (!v.is_array()) c.fail(where, "expected an array, got " + std::string(v.type_name()));
  return v;
}

std::optional<LinkLayer> link_layer_of(const OverridesFile& c, const json& obj, const std::string& where) {
  if (!obj.contains("link_layer")) return std::nullopt;
  const json& v = obj.at("link_layer");
  std::string name = v.is_string() ? v.get<std::string>() : "";
  if (name == "any") return std::nullopt;
  LinkLayer l = link_layer_from_name(name);
  if (l == LinkLayer::Unknown)
    c.fail(where + ".link_layer",
           "expected \"ib\", \"infiniband\", \"roce\", \"ethernet\" or \"any\", got " + json_shown(v));
  return l;
}

NicCeiling parse_ceiling(const OverridesFile& c, const json& v, const std::string& where) {
  object_or_fail(c, v, where);
  check_only_keys(c, v, where, {"rate_gbps", "link_layer", "per_nic_gbytes"});
  NicCeiling n;
  n.rate_gbps = positive_number(c, v, "rate_gbps", where);
  n.link_layer = link_layer_of(c, v, where);
  n.per_nic_gbytes = positive_number(c, v, "per_nic_gbytes", where);
  // The usual slip is Gb/s where GB/s was meant: no NIC carries more bytes
  // than its line rate.
  double line = n.rate_gbps / 8;
  if (n.per_nic_gbytes > line)
    c.fail(where + ".per_nic_gbytes", number_text(n.per_nic_gbytes) + " GB/s is more than a " +
                                          number_text(n.rate_gbps) + " Gb/s port carries (" + number_text(line) +
                                          " GB/s); per_nic_gbytes is bytes (GB/s), rate_gbps is bits (Gb/s)");
  return n;
}

FixedBusbw parse_fixed(const OverridesFile& c, const json& v, const std::string& where) {
  object_or_fail(c, v, where);
  check_only_keys(c, v, where, {"node_type", "collective", "nodes", "busbw_gbytes", "pass_ratio"});
  FixedBusbw f;
  f.node_type = nonempty_string(c, v, "node_type", where);
  std::string coll = nonempty_string(c, v, "collective", where);
  f.collective = collective_from_name(coll);
  if (f.collective == Collective::Unknown)
    c.fail(where + ".collective", "unknown collective " + json_shown(coll) +
                                      " (all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, "
                                      "sendrecv)");
  if (v.contains("nodes")) {
    WholeNumber n = read_whole_number(v.at("nodes"), where + ".nodes", 1, std::numeric_limits<int>::max());
    if (!n.value) c.fail("", n.problem);
    f.nodes = static_cast<int>(*n.value);
  }
  f.busbw_gbytes = positive_number(c, v, "busbw_gbytes", where);
  if (v.contains("pass_ratio")) f.pass_ratio = ratio(c, v.at("pass_ratio"), where + ".pass_ratio");
  return f;
}

void add_ceiling(const OverridesFile& c, BandwidthOverrides& o, NicCeiling n, const std::string& where) {
  for (const auto& e : o.nic_ceilings)
    if (e.rate_gbps == n.rate_gbps && e.link_layer == n.link_layer)
      c.fail(where, number_text(n.rate_gbps) + " Gb/s " +
                        (n.link_layer ? link_layer_name(*n.link_layer) : std::string("(any link layer)")) +
                        " is given twice");
  o.nic_ceilings.push_back(n);
}

void add_fixed(const OverridesFile& c, BandwidthOverrides& o, FixedBusbw f, const std::string& where) {
  for (const auto& e : o.fixed_busbw)
    if (e.node_type == f.node_type && e.collective == f.collective && e.nodes == f.nodes)
      c.fail(where, json_shown(f.node_type) + " " + collective_name(f.collective) + " is given twice");
  o.fixed_busbw.push_back(std::move(f));
}

// A file that sets nothing is refused: it would silently leave the
// built-in model in force while its author believes otherwise.
void require_settings(const OverridesFile& c, const BandwidthOverrides& o, const json& doc) {
  bool ratios = doc.contains("pass_ratio") || doc.contains("rdma_pass_ratio");
  if (o.nic_ceilings.empty() && o.fixed_busbw.empty() && !ratios)
    c.fail("", "no settings (an empty bandwidth file changes nothing; remove it to use the built-in model)");
}

}  // namespace

BandwidthOverrides parse_bandwidth_overrides(std::string_view text, const std::string& file) {
  OverridesFile c{file};
  json doc = parse_untrusted_json(text, file, "bandwidth file");
  if (!doc.is_object()) c.fail("", "expected a JSON object at the top level, got " + std::string(doc.type_name()));
  check_only_keys(c, doc, "", {"schema", "nic_ceilings", "fixed_busbw", "pass_ratio", "rdma_pass_ratio"});
  if (doc.contains("schema") && doc.at("schema") != kSchema)
    c.fail("schema", std::string("expected \"") + kSchema + "\", got " + json_shown(doc.at("schema")));
  BandwidthOverrides o;
  o.source = file;
  if (doc.contains("nic_ceilings")) {
    const json& a = array_at(c, doc.at("nic_ceilings"), "nic_ceilings");
    for (std::size_t i = 0; i < a.size(); ++i) {
      std::string where = "nic_ceilings[" + std::to_string(i) + "]";
      add_ceiling(c, o, parse_ceiling(c, a[i], where), where);
    }
  }
  if (doc.contains("fixed_busbw")) {
    const json& a = array_at(c, doc.at("fixed_busbw"), "fixed_busbw");
    for (std::size_t i = 0; i < a.size(); ++i) {
      std::string where = "fixed_busbw[" + std::to_string(i) + "]";
      add_fixed(c, o, parse_fixed(c, a[i], where), where);
    }
  }
  if (doc.contains("pass_ratio")) o.pass_ratio = ratio(c, doc.at("pass_ratio"), "pass_ratio");
  if (doc.contains("rdma_pass_ratio")) o.rdma_pass_ratio = ratio(c, doc.at("rdma_pass_ratio"), "rdma_pass_ratio");
  require_settings(c, o, doc);
  return o;
}

}  // namespace gdrcheck
