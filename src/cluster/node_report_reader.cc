#include "cluster/node_report_reader.h"

#include <stdexcept>

#include "checks/manifest.h"
#include "cluster/report_age.h"
#include "host/untrusted_json.h"

namespace gdrcheck {
namespace {

using nlohmann::json;

// Thrown inside the reader only: the first thing wrong with the document.
struct Invalid : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const json& member(const json& obj, const char* key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end()) throw Invalid(where + " has no \"" + key + "\"");
  return *it;
}

std::string text(const json& obj, const char* key, const std::string& where) {
  const json& v = member(obj, key, where);
  if (!v.is_string()) throw Invalid(where + "." + key + " is not a string");
  return v.get<std::string>();
}

// A string or null (absent counts as null too).
std::string text_or_empty(const json& obj, const char* key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return "";
  if (!it->is_string()) throw Invalid(where + "." + key + " is not a string");
  return it->get<std::string>();
}

Status status(const json& obj, const std::string& where) {
  std::string name = text(obj, "status", where);
  auto s = parse_status_name(name);
  if (!s) throw Invalid(where + ".status " + json_shown(name) + " is not OK, WARNING, CRITICAL or UNKNOWN");
  return *s;
}

const json& objects(const json& doc, const char* key) {
  const json& a = member(doc, key, "the report");
  if (!a.is_array()) throw Invalid(std::string("\"") + key + "\" is not an array");
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!a[i].is_object()) throw Invalid(std::string(key) + "[" + std::to_string(i) + "] is not an object");
  return a;
}

std::string indexed_key(const char* key, std::size_t i) {
  return std::string(key) + "[" + std::to_string(i) + "]";
}

// Absent counts as 0, as older reports may lack it.
int port_number(const json& port, const std::string& where) {
  auto p = port.find("port");
  if (p == port.end()) return 0;
  WholeNumber n = read_whole_number(*p, where + ".port", 0, 65535);
  if (!n.value) throw Invalid(n.problem);
  return static_cast<int>(*n.value);
}

// Unknown when absent or not a number (the report writes null then).
std::optional<double> rate(const json& port, const std::string& where) {
  auto r = port.find("rate_gbps");
  if (r == port.end() || !r->is_number()) return std::nullopt;
  double gbps = r->get<double>();
  if (!(gbps >= 0)) throw Invalid(where + ".rate_gbps is negative");
  return gbps;
}

// The manifest-shaped facts are compared with a manifest and counted in the
// fingerprint: refused when their shape is wrong, like any other field.
void read_inventory(const json& doc, NodeReportFacts& f) {
  auto inv = doc.find("inventory");
  if (inv == doc.end() || inv->is_null()) return;
  if (std::string problem = manifest_shape_problem(*inv); !problem.empty()) throw Invalid("inventory: " + problem);
  f.inventory = *inv;
}

void read_nics(const json& doc, NodeReportFacts& f) {
  const json& nics = objects(doc, "nics");
  for (std::size_t i = 0; i < nics.size(); ++i) {
    const json& n = nics[i];
    std::string where = indexed_key("nics", i);
    std::string name = text(n, "name", where);
    f.nic_models.push_back(text_or_empty(n, "model", where));
    if (std::string fw = text_or_empty(n, "firmware", where); !fw.empty()) f.firmware.push_back(fw);
    auto ports = n.find("ports");
    if (ports == n.end() || !ports->is_array()) throw Invalid(where + ".ports is not an array");
    for (std::size_t j = 0; j < ports->size(); ++j) {
      const json& p = (*ports)[j];
      std::string port_where = where + "." + indexed_key("ports", j);
      if (!p.is_object()) throw Invalid(port_where + " is not an object");
      f.ports.push_back({name, port_number(p, port_where), text_or_empty(p, "state", port_where), rate(p, port_where)});
    }
  }
}

void read_pairs(const json& doc, NodeReportFacts& f) {
  const json& pairs = objects(doc, "pairs");
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const json& p = pairs[i];
    std::string where = indexed_key("pairs", i);
    f.pairs.push_back({text(p, "gpu", where), text_or_empty(p, "nic_name", where), text_or_empty(p, "path", where),
                       text_or_empty(p, "nccl_path", where), text_or_empty(p, "gdr_send", where),
                       text_or_empty(p, "gdr_recv", where), status(p, where)});
  }
}

void read_findings(const json& doc, NodeReportFacts& f) {
  const json& findings = objects(doc, "findings");
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const json& x = findings[i];
    std::string where = indexed_key("findings", i);
    f.findings.push_back({text(x, "check", where), text_or_empty(x, "subject", where), text(x, "summary", where),
                          text_or_empty(x, "fix", where), status(x, where)});
  }
}

// The later additions: read when present and well-formed, else unknown.
void read_host_facts(const json& doc, NodeReportFacts& f) {
  if (auto k = doc.find("kernel"); k != doc.end() && k->is_string()) f.kernel = k->get<std::string>();
  if (auto d = doc.find("driver"); d != doc.end() && d->is_object() && d->value("version", "") != "")
    f.driver = d->value("version", "") + " " + d->value("kernel_module", "");
  if (auto p = doc.find("peer_memory"); p != doc.end() && p->is_object())
    if (auto fl = p->find("flavor"); fl != p->end() && fl->is_string()) f.peer_memory = fl->get<std::string>();
  if (auto s = doc.find("nccl_settings"); s != doc.end() && s->is_object()) {
    f.nccl_settings.emplace();
    for (auto it = s->begin(); it != s->end(); ++it)
      (*f.nccl_settings)[it.key()] = it->is_object() ? it->value("value", "") : "";
  }
  if (auto m = doc.find("iommu"); m != doc.end() && m->is_object())
    if (auto t = m->find("group_types"); t != m->end() && t->is_array()) {
      f.iommu_group_types.emplace();
      for (const json& x : *t)
        if (x.is_string()) f.iommu_group_types->push_back(x.get<std::string>());
    }
  read_inventory(doc, f);
}

// Optional, as older reports lack it; when present it decides whether the
// node may be drained, so a value that is not exactly the written form is
// refused rather than guessed at.
std::optional<std::int64_t> generated_at(const json& doc) {
  auto g = doc.find("generated_at");
  if (g == doc.end() || g->is_null()) return std::nullopt;
  if (!g->is_string()) throw Invalid("generated_at is not a string");
  auto t = parse_utc_time(g->get<std::string>());
  if (!t) throw Invalid("generated_at " + json_shown(*g) + " is not a UTC time like \"2026-12-03T17:47:26Z\"");
  return t;
}

NodeReportFacts read_document(const json& doc) {
  if (!doc.is_object()) throw Invalid("not a JSON object");
  auto schema = doc.find("schema");
  if (schema == doc.end() || !schema->is_string()) throw Invalid("no \"schema\" (not a gdrcheck node report)");
  if (*schema != "gdrcheck.node/1")
    throw Invalid("schema is " + json_shown(*schema) + ", expected \"gdrcheck.node/1\"");
  NodeReportFacts f;
  f.host = text(doc, "host", "the report");
  f.status = status(doc, "the report");
  f.generated_at = generated_at(doc);
  f.nccl_version = text_or_empty(doc, "nccl_version", "the report");
  const json& gpus = objects(doc, "gpus");
  for (std::size_t i = 0; i < gpus.size(); ++i)
    f.gpu_models.push_back(text_or_empty(gpus[i], "model", indexed_key("gpus", i)));
  read_nics(doc, f);
  read_pairs(doc, f);
  read_findings(doc, f);
  read_host_facts(doc, f);
  return f;
}

// nlohmann's messages start with "[json.exception.parse_error.101] ".
std::string json_problem(const std::string& kind, const std::string& what) {
  auto close = what.find("] ");
  bool prefixed = what.rfind("[json.exception", 0) == 0 && close != std::string::npos;
  return kind + " (" + (prefixed ? what.substr(close + 2) : what) + ")";
}

bool blank(std::string_view s) {
  return s.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

}  // namespace

std::optional<Status> parse_status_name(std::string_view name) {
  for (Status s : {Status::Ok, Status::Warning, Status::Critical, Status::Unknown})
    if (name == status_name(s)) return s;
  return std::nullopt;
}

// A node's output never stops the cluster run: whatever goes wrong in
// reading it makes that node UNKNOWN with the reason.
NodeReportRead read_node_report(std::string_view raw) {
  if (blank(raw)) return {std::nullopt, "empty output"};
  try {
    json doc = parse_untrusted_json(raw, "the report", "gdrcheck node report");
    return {read_document(doc), ""};
  } catch (const JsonSyntaxError& e) {
    return {std::nullopt, "not JSON (" + e.detail() + ")"};
  } catch (const InputError& e) {  // too deep, a key twice
    return {std::nullopt, e.problem()};
  } catch (const Invalid& e) {
    return {std::nullopt, e.what()};
  } catch (const json::exception& e) {  // a value of an unexpected type deep inside
    return {std::nullopt, json_problem("unexpected value", e.what())};
  } catch (const std::exception& e) {
    return {std::nullopt, std::string("unreadable (") + e.what() + ")"};
  }
}

}  // namespace gdrcheck
