#include "checks/node_report.h"

#include <algorithm>

#include "checks/manifest.h"
#include "checks/node_evidence.h"
#include "host/device_ids.h"

namespace gdrcheck {
namespace {

std::map<std::string, GpuFacts> gpu_facts(const Topology& t) {
  std::map<std::string, GpuFacts> out;
  for (const Endpoint* g : t.with_role(DeviceRole::Gpu)) {
    GpuFacts f;
    if (g->node >= 0)
      if (auto info = nvidia_gpu_info(t.nodes[g->node].device, g->model)) f.sm = info->sm;
    out[g->id] = f;
  }
  return out;
}

std::vector<GdrPrediction> predict(const Topology& t, const HostState& h, const NodeOptions& o) {
  Topology view = nccl_view(t, o.view);
  GdrPredictInput in;
  in.nccl_view = &view;
  in.gpus = gpu_facts(t);
  in.host = gdr_host_facts(t, h);
  in.settings = h.nccl;
  in.version = o.nccl_version;
  return predict_gdr(in);
}

std::vector<Finding> run_checks(const NodeEvidence& e) {
  std::vector<Finding> all;
  for (auto check : {check_gpu, check_nic, check_port, check_peermem, check_path, check_acs, check_iommu, check_link,
                     check_nccl, check_driver}) {
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

PairVerdict verdict_for(const NodeReport& r, const GdrPrediction& p) {
  PairVerdict v;
  v.gpu = p.gpu;
  v.gdr_send = p.send;
  v.gdr_recv = p.recv;
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
    }
  std::stable_sort(bad.begin(), bad.end(), [](const Finding* a, const Finding* b) {
    return worse(a->status, b->status) == a->status && a->status != b->status;
  });
  for (const Finding* f : bad) v.reasons.push_back(f->check + ": " + f->summary);
  v.reason = v.reasons.empty() ? "GPUDirect RDMA ready" : v.reasons.front();
  return v;
}

}  // namespace

NodeReport build_node_report(Topology topology, const HostState& host, const NodeOptions& options) {
  NodeReport r;
  r.topology = std::move(topology);
  r.root = host.root;
  r.host = host.hostname.value.value_or("unknown");
  r.nccl_version = options.nccl_version;
  r.paths = compute_paths(r.topology, options.view);
  r.predictions = predict(r.topology, host, options);
  NodeEvidence e{r.topology, r.paths, host, r.predictions, options.nccl_version};
  r.findings = run_checks(e);
  if (options.manifest) {
    auto diffs = check_manifest(r, host, *options.manifest);
    r.findings.insert(r.findings.end(), diffs.begin(), diffs.end());
  }
  for (const auto& p : r.predictions) r.pairs.push_back(verdict_for(r, p));
  r.status = worst_status(r.findings);
  return r;
}

}  // namespace gdrcheck
