#include "report/bench_prometheus.h"

#include "report/node_prometheus.h"

namespace gdrcheck {
namespace {

// The verdict, the time and the findings of one bench kind.
void bench_verdict(PrometheusText& t, const std::string& kind, Status status, const std::vector<Finding>& findings,
                   const PrometheusStamp& stamp) {
  std::string prefix = "gdrcheck_bench_" + kind;
  t.gauge(prefix + "_info", "gdrcheck version that ran the " + kind + " bench; always 1");
  t.gauge(prefix + "_status", "Verdict of the " + kind + " bench" + kStatusScaleHelp);
  t.gauge(prefix + "_timestamp_seconds", "When the " + kind + " bench ended, in seconds since the Unix epoch");
  t.gauge(prefix + "_check_status", "Worst finding of the " + kind + " bench on one subject" + kStatusScaleHelp);
  t.add(prefix + "_info", {{"version", stamp.version}}, 1);
  t.add(prefix + "_status", {}, status_value(status));
  t.add(prefix + "_timestamp_seconds", {}, stamp.unix_seconds);
  for (const auto& f : findings)
    t.add(prefix + "_check_status", {{"check", f.check}, {"subject", f.subject}}, status_value(f.status),
          worse_status_value);
}

void busbw(PrometheusText& t, const NcclBenchReport& r) {
  t.gauge("gdrcheck_bench_busbw_gbytes",
          "Large-message bus bandwidth of nccl-tests, median over the runs that ran, GB/s (1e9 bytes); gdr=\"off\" "
          "is the A/B run with GPUDirect RDMA forced off");
  t.gauge("gdrcheck_bench_busbw_expected_gbytes", "Bus bandwidth the NICs should carry (ring figure), GB/s");
  t.gauge("gdrcheck_bench_busbw_pass_gbytes", "Bus bandwidth at or above which the bench passes, GB/s");
  t.gauge("gdrcheck_bench_gdr_gain_ratio", "Bus bandwidth with GPUDirect RDMA over without it, minus 1 (A/B runs)");
  PrometheusLabels labels = {{"test", r.test}, {"collective", collective_name(r.expectation.collective)}};
  auto with_gdr = [&](const char* gdr) {
    PrometheusLabels l = labels;
    l.push_back({"gdr", gdr});
    return l;
  };
  if (r.busbw_on) t.add("gdrcheck_bench_busbw_gbytes", with_gdr("on"), r.busbw_on->median);
  if (r.busbw_off) t.add("gdrcheck_bench_busbw_gbytes", with_gdr("off"), r.busbw_off->median);
  if (r.expectation.known) {
    t.add("gdrcheck_bench_busbw_expected_gbytes", labels, r.expectation.expected_busbw_gbytes);
    t.add("gdrcheck_bench_busbw_pass_gbytes", labels, r.expectation.pass_busbw_gbytes);
  }
  if (r.gain) t.add("gdrcheck_bench_gdr_gain_ratio", labels, *r.gain);
}

void rdma_pairs(PrometheusText& t, const RdmaBenchReport& r) {
  t.gauge("gdrcheck_bench_rdma_gbits",
          "ib_write_bw with the buffer in the GPU's memory, median over repeats, Gb/s (bits); absent when it could "
          "not run");
  t.gauge("gdrcheck_bench_rdma_pass_gbits", "Gb/s at or above which the GPU-NIC pair passes");
  t.gauge("gdrcheck_bench_rdma_pair_status", std::string("Verdict of one GPU-NIC pair") + kStatusScaleHelp);
  t.gauge("gdrcheck_bench_rdma_host_gbits", "ib_write_bw with the buffer in host memory, median, Gb/s, per NIC");
  for (const auto& p : r.pairs) {
    PrometheusLabels labels = {
        {"node", p.node}, {"gpu", p.pair.gpu}, {"nic", p.pair.nic}, {"port", std::to_string(p.pair.port)}};
    // A pair measured twice keeps its lower figure and worse verdict.
    if (p.gpu.stats) t.add("gdrcheck_bench_rdma_gbits", labels, p.gpu.stats->median, keep_lowest);
    if (p.expectation.known) t.add("gdrcheck_bench_rdma_pass_gbits", labels, p.expectation.pass_gbits, keep_highest);
    Status s = p.judgement ? p.judgement->status : Status::Unknown;
    t.add("gdrcheck_bench_rdma_pair_status", labels, status_value(s), worse_status_value);
    if (p.host_gbits)
      t.add("gdrcheck_bench_rdma_host_gbits", {{"node", p.node}, {"nic", p.pair.nic}}, *p.host_gbits, keep_lowest);
  }
}

}  // namespace

std::string nccl_bench_prometheus(const NcclBenchReport& r, const PrometheusStamp& stamp) {
  PrometheusText t;
  bench_verdict(t, "nccl", r.status, r.findings, stamp);
  busbw(t, r);
  return t.text();
}

std::string rdma_bench_prometheus(const RdmaBenchReport& r, const PrometheusStamp& stamp) {
  PrometheusText t;
  bench_verdict(t, "rdma", r.status, r.findings, stamp);
  rdma_pairs(t, r);
  return t.text();
}

}  // namespace gdrcheck
