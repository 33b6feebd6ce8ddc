#include "report/node_prometheus.h"

#include "host/sysfs_values.h"

namespace gdrcheck {
namespace {

Status status_of(double v) {
  for (Status s : {Status::Ok, Status::Warning, Status::Critical, Status::Unknown})
    if (status_value(s) == v) return s;
  return Status::Unknown;
}

void declare(PrometheusText& t) {
  t.gauge("gdrcheck_info", "gdrcheck version and the NCCL release whose rules the prediction follows; always 1");
  t.gauge("gdrcheck_status", std::string("Worst status of the node report") + kStatusScaleHelp);
  t.gauge("gdrcheck_report_timestamp_seconds", "When the node report was made, in seconds since the Unix epoch");
  t.gauge("gdrcheck_check_status", std::string("Worst finding of one check on one subject") + kStatusScaleHelp);
  t.gauge("gdrcheck_gpu_gdr",
          "1 when GPUDirect RDMA carries this direction of the GPU's traffic, 0 when it does not (NCCL stages "
          "through host memory, or the host breaks the transfer); absent when the evidence cannot decide "
          "(see gdrcheck_gpu_gdr_known)");
  t.gauge("gdrcheck_gpu_gdr_known", "1 when gdrcheck_gpu_gdr is decided for this direction, 0 when unknown");
  t.gauge("gdrcheck_gpu_ready",
          "1 when the GPU is GPUDirect-ready: GDR both ways and no problem on the GPU-NIC pair; 0 otherwise, "
          "unknown included");
  t.gauge("gdrcheck_port_rate_gbps", "RDMA port rate in Gb/s as sysfs reports it; absent when unreadable");
  t.gauge("gdrcheck_port_active", "1 when the RDMA port state is ACTIVE, 0 otherwise; absent when unreadable");
}

void checks(PrometheusText& t, const NodeReport& r) {
  for (const auto& f : r.findings)
    t.add("gdrcheck_check_status", {{"check", f.check}, {"subject", f.subject}}, status_value(f.status),
          worse_status_value);
}

// Unknown is no sample of gdrcheck_gpu_gdr: a -1 would pass `< 1` alerts
// but corrupt sums and averages, and a 0 would claim a fact not known.
void gdr_direction(PrometheusText& t, const PairVerdict& p, const char* direction, GdrUse use) {
  PrometheusLabels labels = {{"gpu", p.gpu}, {"nic", p.nic_name}, {"direction", direction}};
  bool known = use != GdrUse::Unknown;
  t.add("gdrcheck_gpu_gdr_known", labels, known ? 1 : 0, keep_lowest);
  if (known) t.add("gdrcheck_gpu_gdr", labels, use == GdrUse::Yes ? 1 : 0, keep_lowest);
}

void pairs(PrometheusText& t, const NodeReport& r) {
  for (const auto& p : r.pairs) {
    gdr_direction(t, p, "send", p.gdr_send);
    gdr_direction(t, p, "recv", p.gdr_recv);
    t.add("gdrcheck_gpu_ready", {{"gpu", p.gpu}, {"nic", p.nic_name}}, p.ready() ? 1 : 0, keep_lowest);
  }
}

// The NICs of the topology, as the JSON report lists them.
void ports(PrometheusText& t, const NodeReport& r, const HostState& h) {
  for (const Endpoint* n : r.topology.with_role(DeviceRole::Nic))
    for (const auto& d : h.rdma) {
      if (d.name != n->name) continue;
      for (const auto& p : d.ports) {
        PrometheusLabels labels = {{"nic", d.name}, {"port", std::to_string(p.number)}};
        if (auto rate = parse_ib_rate_gbps(p.rate.value.value_or("")))
          t.add("gdrcheck_port_rate_gbps", labels, *rate, keep_lowest);
        if (auto state = parse_numbered_state(p.state.value.value_or("")))
          t.add("gdrcheck_port_active", labels, state->name == "ACTIVE" ? 1 : 0, keep_lowest);
      }
    }
}

}  // namespace

double status_value(Status s) {
  return exit_code(s);
}

double worse_status_value(double kept, double added) {
  return status_value(worse(status_of(kept), status_of(added)));
}

std::string node_prometheus(const NodeReport& r, const HostState& h, const PrometheusStamp& stamp) {
  PrometheusText t;
  declare(t);
  t.add("gdrcheck_info", {{"version", stamp.version}, {"rules", r.nccl_version.str()}}, 1);
  t.add("gdrcheck_status", {}, status_value(r.status));
  t.add("gdrcheck_report_timestamp_seconds", {}, stamp.unix_seconds);
  checks(t, r);
  pairs(t, r);
  ports(t, r, h);
  return t.text();
}

}  // namespace gdrcheck
