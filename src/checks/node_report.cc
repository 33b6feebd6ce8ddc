#include "checks/node_report.h"

#include "checks/gds_report.h"

#include <algorithm>
#include <filesystem>

#include "checks/manifest.h"
#include "checks/node_evidence.h"
#include "checks/placement_plan.h"
#include "host/device_ids.h"
#include "topology/nccl_view.h"
#include "topology/nccl_xml_source.h"

namespace gdrcheck {
namespace {

// Endpoint ids of `from` by bus id, for the devices `to` also has.
std::map<std::string, std::string> ids_by_address(const Topology& from, const Topology& to) {
  std::map<std::string, std::string> out;
  for (const auto& a : from.endpoints)
    for (const auto& b : to.endpoints)
      if (a.address && b.address && *a.address == *b.address && a.role == b.role) out[a.id] = b.id;
  return out;
}

std::string mapped(const std::map<std::string, std::string>& m, const std::string& id) {
  auto it = m.find(id);
  return it == m.end() ? id : it->second;
}

// What NCCL would build its topology from. NCCL_TOPO_FILE (any release) or
// the virtual topology a hypervisor agent leaves (from 2.10.3) replaces the
// PCI probe; GPUs and NICs are still matched by bus id.
struct PredictionTopology {
  Topology view;
  std::string source = "sysfs";
  bool unloadable = false;                                // the file is there but NCCL cannot parse it
  std::map<std::string, std::string> to_file, from_file;  // endpoint ids, host ↔ file
  std::vector<std::string> notes;
};

// NCCL's view as a release builds it: Broadcom Gen4 switches flattened from
// 2.9.6, Gen5 from 2.20.3 (src/graph/topo.cc:ncclTopoFlattenBcmSwitches,
// getBcmGen@v2.20.3-1). --no-bcm-flatten turns both off.
NcclViewOptions view_options(const NodeOptions& o, const NcclVersion& v) {
  NcclViewOptions vo = o.view;
  if (v < NcclVersion{2, 9, 6}) vo.flatten_bcm = false;
  if (v < NcclVersion{2, 20, 3}) vo.flatten_bcm_gen5 = false;
  return vo;
}

PredictionTopology prediction_topology(const Topology& t, const HostState& h, const NodeOptions& o,
                                       const NcclVersion& v) {
  PredictionTopology p;
  const auto& f = h.nccl_topology_file;
  bool used = f && f->xml && (f->from_setting || v >= NcclVersion{2, 10, 3});
  if (used) try {
      Topology file = read_nccl_xml(*f->xml, f->path);
      p.to_file = ids_by_address(t, file);
      p.from_file = ids_by_address(file, t);
      std::size_t gpus = t.with_role(DeviceRole::Gpu).size();
      std::size_t matched = 0;
      for (const Endpoint* g : t.with_role(DeviceRole::Gpu)) matched += p.to_file.count(g->id);
      if (matched == gpus && gpus > 0) {
        for (auto& e : file.endpoints)  // the host's RDMA names for the file's NICs
          if (const Endpoint* host = t.find(mapped(p.from_file, e.id)); host && e.role == DeviceRole::Nic)
            e.name = host->name, e.rdma_device = host->rdma_device;
        p.view = nccl_view(file, view_options(o, v));
        p.source = f->path;
        return p;
      }
      p.notes.push_back(f->path + " lists " + std::to_string(matched) + " of the host's " + std::to_string(gpus) +
                        " GPUs by bus id: predicted from the PCI tree");
    } catch (const std::exception& e) {
      p.notes.push_back(f->path + ": " + e.what() + " (NCCL fails to load it)");
      p.unloadable = true;
    }
  p.to_file.clear();
  p.from_file.clear();
  p.view = nccl_view(t, view_options(o, v));
  return p;
}

template <class T>
std::map<std::string, T> rekeyed(const std::map<std::string, T>& by_id, const std::map<std::string, std::string>& m) {
  if (m.empty()) return by_id;
  std::map<std::string, T> out;
  for (const auto& [id, v] : by_id) out[mapped(m, id)] = v;
  return out;
}

// Predictions in the host topology's endpoint ids.
void back_to_host_ids(std::vector<GdrPrediction>& preds, const std::map<std::string, std::string>& from_file) {
  if (from_file.empty()) return;
  for (auto& p : preds) {
    p.gpu = mapped(from_file, p.gpu);
    for (auto& n : p.nics) n = mapped(from_file, n);
    p.send_nic = mapped(from_file, p.send_nic);
    p.recv_nic = mapped(from_file, p.recv_nic);
    if (!p.pxn_peer.empty()) p.pxn_peer = mapped(from_file, p.pxn_peer);
  }
}

struct TopologyUse {
  std::string source;
  std::vector<std::string> notes;
  bool unloadable = false;
};

// What the prediction needs of the host, whatever the release: read once and
// shared by the prediction for every release found.
struct HostFacts {
  std::map<std::string, GpuFacts> gpus;
  GdrHostFacts host;
  std::optional<std::vector<NicPortFacts>> ports;
  std::optional<NetPluginFacts> net_plugin;
};

HostFacts host_facts(const Topology& t, const HostState& h, const NodeOptions& o) {
  HostFacts f{gpu_facts(t, h), gdr_host_facts(t, h), nic_port_facts(t, h), net_plugin_facts(h)};
  if (o.topology_file_only) apply_peer_memory_assumption(*o.topology_file_only, f.host);
  return f;
}

std::vector<GdrPrediction> predict(const Topology& t, const HostState& h, const HostFacts& facts, const NodeOptions& o,
                                   const NcclVersion& v, TopologyUse* use) {
  PredictionTopology pt = prediction_topology(t, h, o, v);
  GdrPredictInput in;
  in.nccl_view = &pt.view;
  in.gpus = rekeyed(facts.gpus, pt.to_file);
  for (auto& [id, f] : in.gpus)
    for (auto& peer : f.nvlink_peers) peer = mapped(pt.to_file, peer);
  in.host = facts.host;
  if (facts.ports) {
    in.ports = facts.ports;
    for (auto& port : *in.ports) port.nic_id = mapped(pt.to_file, port.nic_id);
  }
  in.net_plugin = facts.net_plugin;
  in.settings = h.nccl;
  in.version = v;
  std::vector<GdrPrediction> out = predict_gdr(in);
  back_to_host_ids(out, pt.from_file);
  for (auto& p : out) {
    if (pt.source != "sysfs")
      p.rules.insert(p.rules.begin(), "NCCL builds its topology from " + pt.source + ", not from the PCI tree");
    p.rules.insert(p.rules.begin(), pt.notes.begin(), pt.notes.end());
  }
  if (use) *use = {pt.source, pt.notes, pt.unloadable};
  return out;
}

using CheckFamily = std::vector<Finding> (*)(const NodeEvidence&);

std::vector<Finding> run_checks(const NodeEvidence& e) {
  std::vector<Finding> all;
  std::vector<CheckFamily> families{check_gpu, check_nic,   check_port, check_peermem, check_path,
                                    check_acs, check_iommu, check_link, check_nccl,    check_driver};
  // A topology file holds the PCI tree only: what the other families
  // judge is reported once, by the `host` finding.
  if (e.topology_file_only) families = {check_gpu, check_nic, check_path, check_nccl};
  for (auto check : families) {
    auto found = check(e);
    all.insert(all.end(), found.begin(), found.end());
  }
  return all;
}

// A finding bears on a GPU↔NIC pair when its subject or `affects` names the
// GPU, the NIC (endpoint id, RDMA name or a port of it), the pair, or the host.
bool related(const Finding& f, const std::string& gpu, const std::string& nic_id, const std::string& nic) {
  auto names = [&](const std::string& s) {
    return s == gpu || (!nic.empty() && (s == nic || s == nic_id || s.rfind(nic + "/", 0) == 0)) ||
           s == gpu + "-" + nic_id || s == "host";
  };
  if (names(f.subject)) return true;
  return std::any_of(f.affects.begin(), f.affects.end(), names);
}

// Findings that make a transfer NCCL selected fail or hang rather than
// fall back: P2P traffic redirected upstream or translated by the IOMMU.
bool breaks_transfers(const Finding& f) {
  return f.status == Status::Critical && (f.check == "acs" || f.check == "iommu");
}

GdrUse use_of(Tri selected, const std::vector<std::string>& fail_reasons) {
  if (selected == Tri::Yes && !fail_reasons.empty()) return GdrUse::Fail;
  return gdr_use_of(selected);
}

PairVerdict verdict_for(const NodeReport& r, const GdrPrediction& p) {
  PairVerdict v;
  v.gpu = p.gpu;
  v.nccl_path = nccl_path_name(p.path);
  if (!p.nics.empty()) {
    v.nic = p.nics.front();
    if (const Endpoint* n = r.topology.find(v.nic)) v.nic_name = n->name;
    v.path = r.paths.smi_at(p.gpu, v.nic).code;
  }
  std::vector<const Finding*> bad;
  v.status = Status::Ok;
  for (const auto& f : r.findings)
    if (related(f, p.gpu, v.nic, v.nic_name)) {
      v.status = worse(v.status, f.status);
      if (f.status != Status::Ok) bad.push_back(&f);
      if (breaks_transfers(f)) v.fail_reasons.push_back(f.check + ": " + f.summary);
    }
  v.fail_reasons.insert(v.fail_reasons.end(), p.fail_reasons.begin(), p.fail_reasons.end());
  v.gdr_send = use_of(p.send, v.fail_reasons);
  v.gdr_recv = use_of(p.recv, v.fail_reasons);
  std::stable_sort(bad.begin(), bad.end(), [](const Finding* a, const Finding* b) {
    return worse(a->status, b->status) == a->status && a->status != b->status;
  });
  for (const Finding* f : bad) v.reasons.push_back(f->check + ": " + f->summary);
  v.reason = v.reasons.empty() ? "GPUDirect RDMA ready" : v.reasons.front();
  return v;
}

// A topology file taken without the RDMA driver loaded (a vendor's lstopo
// of a demo unit) shows NIC functions without RDMA devices; the machine
// being judged would have them — the `host` finding's `driver` fact.
void assume_rdma_devices(Topology& t) {
  std::vector<std::string> named;
  for (auto& e : t.endpoints)
    if (e.role == DeviceRole::Nic && !e.rdma_device) {
      e.rdma_device = true;
      named.push_back(e.name);
    }
  if (!named.empty())
    t.notes.push_back("no RDMA device for " + std::to_string(named.size()) +
                      " NIC function(s) in the file (taken without the RDMA driver?): judged as RDMA NICs, "
                      "named by bus id");
}

}  // namespace

NodeReport build_node_report(Topology topology, const HostState& host, const NodeOptions& options) {
  NodeReport r;
  r.topology = std::move(topology);
  if (options.topology_file_only) assume_rdma_devices(r.topology);
  r.root = host.root;
  r.host = host.hostname.value.value_or("unknown");
  NcclVersionPlan plan = plan_nccl_versions(options.nccl_version, nccl_found(host));
  if (options.topology_file_only) {
    r.from_topology_file = true;
    r.assumed = options.topology_file_only->text();
    r.host = std::filesystem::path(host.root).filename().string();
    if (!options.nccl_version)
      plan.primary.origin = "not in a topology file: the newest rules gdrcheck knows; --nccl-version chooses";
  }
  r.nccl = plan.primary;
  r.nccl_version = plan.primary.rules;
  r.paths = compute_paths(r.topology, view_options(options, r.nccl_version));
  TopologyUse use;
  HostFacts facts = host_facts(r.topology, host, options);
  r.predictions = predict(r.topology, host, facts, options, r.nccl_version, &use);
  r.nccl_topology = use.source;
  r.nccl_topology_notes = use.notes;
  r.nccl_topology_unloadable = use.unloadable;
  for (const auto& other : plan.others)
    r.nccl_alternatives.push_back({other, predict(r.topology, host, facts, options, other.rules, nullptr)});
  if (options.gds) name_nvme_endpoints(r.topology, options.gds->nvme_controllers);
  NodeEvidence e{r.topology,
                 r.paths,
                 host,
                 r.predictions,
                 r.nccl_version,
                 &r.nccl,
                 &r.nccl_alternatives,
                 r.nccl_topology,
                 r.nccl_topology_notes,
                 r.nccl_topology_unloadable,
                 options.topology_file_only.has_value()};
  r.findings = run_checks(e);
  if (options.gds) {
    auto gds = gds_findings_for_node(*options.gds, e);
    r.findings.insert(r.findings.end(), gds.begin(), gds.end());
  }
  if (options.topology_file_only)
    r.findings.insert(r.findings.begin(), topology_file_host_finding(*options.topology_file_only, r.topology.source));
  if (options.manifest) {
    auto diffs = check_manifest(r, host, *options.manifest);
    r.findings.insert(r.findings.end(), diffs.begin(), diffs.end());
  }
  if (options.policy) apply_policy(r.findings, *options.policy);
  for (const auto& p : r.predictions) r.pairs.push_back(verdict_for(r, p));
  r.status = worst_status(r.findings);
  if (r.from_topology_file) r.plan = placement_plan(r);
  return r;
}

}  // namespace gdrcheck
