#include "bench/nccl_verdict.h"

#include <cstdio>

#include "host/text_format.h"

namespace gdrcheck {
namespace {

const NcclRunResult* first_usable(const std::vector<NcclRunResult>& runs) {
  for (const auto& r : runs)
    if (r.could_not_run.empty()) return &r;
  return nullptr;
}

std::optional<RepeatStats> large_busbw_stats(const std::vector<NcclRunResult>& runs) {
  std::vector<double> v;
  for (const auto& r : runs)
    if (r.could_not_run.empty() && r.large) v.push_back(r.large->busbw);
  return repeat_stats(v);
}

std::string run_fix(const NcclRunResult& r) {
  const std::string& why = r.could_not_run;
  if (why.find("not found") != std::string::npos || why.find("could not start") != std::string::npos)
    return "install the launcher / nccl-tests on every node, or name them (--nccl-tests DIR, --launcher)";
  if (why.find("hung") != std::string::npos)
    return "see the raw output for where it stopped (often NCCL bootstrap: NCCL_SOCKET_IFNAME, firewalls); raise "
           "--timeout for slow runs";
  return "read the raw output " + (r.raw_output.empty() ? std::string("(none was written)") : r.raw_output) +
         ": the launcher or the test printed why";
}

void could_not_run_findings(const NcclBenchReport& rep, std::vector<Finding>& out) {
  for (const auto* runs : {&rep.gdr_on, &rep.gdr_off})
    for (const auto& r : *runs) {
      if (r.could_not_run.empty()) continue;
      std::vector<std::string> ev{"command: " + join(r.argv, " "), "ended: " + r.end};
      if (!r.raw_output.empty()) ev.push_back("raw output: " + r.raw_output);
      for (const auto& e : r.test_errors) ev.push_back(e);
      out.push_back(
          problem("run", r.label, Status::Unknown, "the test could not run: " + r.could_not_run, ev, run_fix(r)));
    }
}

std::string proof_text(const NodeGdrProof& n) {
  std::string devs;
  for (int d : n.net_devices) devs += (devs.empty() ? "" : ",") + std::to_string(d);
  return std::to_string(n.gdr) + " of " + std::to_string(n.connections) + " network connections via GDRDMA (send " +
         std::to_string(n.send_gdr) + "/" + std::to_string(n.send) + ", receive " + std::to_string(n.recv_gdr) + "/" +
         std::to_string(n.recv) + ") on NET device(s) " + devs;
}

void gdr_findings(const NcclRunResult& r, std::vector<Finding>& out) {
  std::vector<std::string> reasons;
  for (const auto& why : r.reasons) {
    std::string lines;
    for (auto l : why.lines) lines += (lines.empty() ? "" : ",") + std::to_string(l);
    reasons.push_back(why.message + " (" + r.raw_output + " line " + lines + ")");
  }
  const std::string fix =
      "run `gdrcheck node` on the node: it names the cause (peer memory, PCIe path, ACS, IOMMU, NCCL settings)";
  if (r.nodes.empty()) {
    Status s = r.gdr == GdrVerdict::No ? Status::Critical : Status::Unknown;
    std::string summary = r.gdr == GdrVerdict::No
                              ? "GPUDirect RDMA not used: " + r.gdr_why
                              : "no network connection in the log: nothing proves the data path (single node, "
                                "or NCCL_DEBUG_SUBSYS without INIT/NET)";
    std::vector<std::string> ev = reasons;
    ev.push_back("raw output: " + r.raw_output);
    out.push_back(problem("gdr", "run", s, summary, ev,
                          s == Status::Critical ? fix : "run on two nodes or more (--hosts a,b) to test the network"));
    return;
  }
  for (const auto& n : r.nodes) {
    std::string subject = n.host.empty() ? "(host not printed)" : n.host;
    std::vector<std::string> ev{proof_text(n), "raw output: " + r.raw_output};
    if (n.gdr == n.connections) {
      out.push_back(ok("gdr", subject, "GPUDirect RDMA proven: every network connection via GDRDMA", ev));
      continue;
    }
    ev.insert(ev.end(), reasons.begin(), reasons.end());
    Status s = n.gdr == 0 ? Status::Critical : Status::Warning;
    std::string summary = n.gdr == 0 ? "GPUDirect RDMA not used: traffic staged through host memory"
                                     : "GPUDirect RDMA on some connections only";
    out.push_back(problem("gdr", subject, s, summary, ev, fix));
  }
}

void bandwidth_finding(NcclBenchReport& rep, const NcclRunResult& first, std::vector<Finding>& out) {
  if (!rep.busbw_on) return;
  BandwidthJudgement j = judge_busbw(rep.expectation, rep.busbw_on->median);
  std::vector<std::string> ev = j.evidence;
  ev.push_back("largest message " + bytes_text(first.large ? first.large->size : 0) + ": busbw median " +
               fixed(rep.busbw_on->median) + " GB/s over " + std::to_string(rep.busbw_on->count) + " run(s)");
  for (const auto& a : rep.expectation.assumptions) ev.push_back("assumed: " + a);
  for (const auto& s : rep.expectation.sources) ev.push_back("source: " + s);
  if (!rep.expectation.known) ev.push_back("no expectation: " + rep.expectation.unknown_reason);
  if (first.large && first.large->size < (1ull << 30))
    ev.push_back("messages up to " + bytes_text(first.large->size) +
                 " only: busbw may not have reached its plateau (use -e 8G)");
  std::string fix = j.fix;
  if (!rep.expectation.known && fix.empty())
    fix = rep.scenario.nodes < 2
              ? "run on two nodes or more (--hosts a,b), or set a single-node figure in the site bandwidth file"
              : "give the NICs (--nic-rate GBPS --nics N) or run where `gdrcheck node` can read them";
  Finding f = j.status == Status::Ok ? ok("bandwidth", "busbw", j.summary, ev)
                                     : problem("bandwidth", "busbw", j.status, j.summary, ev, fix);
  rep.bandwidth = j;
  out.push_back(f);
}

void noise_finding(const NcclBenchReport& rep, std::vector<Finding>& out) {
  if (!rep.busbw_on || rep.busbw_on->count < 2) return;
  const RepeatStats& s = *rep.busbw_on;
  std::vector<std::string> ev{"busbw min " + fixed(s.min) + ", median " + fixed(s.median) + ", max " + fixed(s.max) +
                              " GB/s over " + std::to_string(s.count) + " runs"};
  if (s.spread <= kNoisySpread) {
    out.push_back(ok("noise", "busbw", "repeats agree within " + fixed(s.spread * 100, 1) + " %", ev));
    return;
  }
  out.push_back(problem("noise", "busbw", Status::Warning,
                        "repeats differ by " + fixed(s.spread * 100, 1) + " % of the median: the figure is noisy", ev,
                        "run on idle nodes (no other jobs, no congested switch ports) and with more --repeat"));
}

// Why GDR on gives (almost) nothing, from what the runs show.
std::vector<std::string> small_gain_reasons(const NcclBenchReport& rep, const NcclRunResult& on) {
  std::vector<std::string> why;
  if (on.gdr != GdrVerdict::Yes)
    why.push_back("staged anyway: the GDR-on run did not use GDRDMA on every connection (log: " +
                  std::string(gdr_verdict_name(on.gdr)) + "), so both runs went through host memory");
  if (rep.expectation.nics_used == 1 || on.nics_driven_per_node == 1)
    why.push_back("single NIC per node: host-memory staging keeps up with one NIC, the NIC is the limit either way");
  if (on.large && on.large->size < (256ull << 20))
    why.push_back("small messages (largest " + bytes_text(on.large->size) +
                  "): latency, not staging bandwidth, dominates");
  if (rep.bandwidth && rep.bandwidth->ratio >= rep.expectation.pass_ratio)
    why.push_back("both runs reach the NICs' ceiling: the network, not the copy through host memory, is the limit");
  if (why.empty())
    why.push_back("no cause visible in the output: PCIe or host-memory bandwidth may be ample enough to hide the copy");
  return why;
}

void ab_finding(NcclBenchReport& rep, const NcclRunResult* on, std::vector<Finding>& out) {
  if (!rep.ab) return;
  const NcclRunResult* off = first_usable(rep.gdr_off);
  if (!on || !off || !rep.busbw_on || !rep.busbw_off) {
    out.push_back(problem("ab", "gdr-off", Status::Unknown, "A/B not possible: a run could not give a busbw figure", {},
                          "see the run findings"));
    return;
  }
  std::vector<std::string> ev{
      "GDR on: busbw median " + fixed(rep.busbw_on->median) + " GB/s",
      "GDR off (NCCL_NET_GDR_LEVEL=LOC): busbw median " + fixed(rep.busbw_off->median) + " GB/s",
      "GDR-off log: " + std::to_string(off->gdr_connections) + " of " + std::to_string(off->connections) +
          " connections via GDRDMA"};
  if (off->gdr_connections > 0) {
    out.push_back(problem("ab", "gdr-off", Status::Unknown,
                          "the GDR-off run still used GDRDMA: NCCL_NET_GDR_LEVEL=LOC did not reach the ranks", ev,
                          "check how the launcher exports variables (Open MPI -x, srun --export)"));
    return;
  }
  if (rep.busbw_off->median <= 0) {
    out.push_back(problem("ab", "gdr-off", Status::Unknown, "the GDR-off run measured no bandwidth", ev,
                          "read its raw output " + off->raw_output));
    return;
  }
  rep.gain = rep.busbw_on->median / rep.busbw_off->median - 1;
  std::string gain = (*rep.gain >= 0 ? "+" : "") + fixed(*rep.gain * 100, 1) + " %";
  if (*rep.gain >= kMinGdrGain && on->gdr == GdrVerdict::Yes) {
    out.push_back(ok("ab", "gain", "GPUDirect RDMA gives " + gain + " busbw over staging through host memory", ev));
    return;
  }
  for (const auto& w : small_gain_reasons(rep, *on)) ev.push_back("likely: " + w);
  out.push_back(problem("ab", "gain", Status::Warning,
                        "GPUDirect RDMA \"on\" gives " + gain + " busbw over GDR off: no measurable gain", ev,
                        "see the likely causes; test with several NICs per node and messages up to 8G"));
}

std::string units_line(const NcclBenchReport& rep) {
  std::string algo = rep.scenario.algorithm == Algorithm::Ring ? "RING (forced, NCCL_ALGO=RING)"
                     : rep.scenario.algorithm == Algorithm::Unknown
                         ? "chosen by NCCL (tree/NVLS can exceed the ring figure, which is then not a floor)"
                         : std::string(algorithm_name(rep.scenario.algorithm)) + " (as set)";
  return "busbw/algbw in GB/s (bytes, 1e9); NIC rates in Gb/s (bits, 1e9; /8 for bytes). busbw is bus bandwidth "
         "(algbw scaled by the collective's traffic factor, comparable with link speed), algbw is size/time. "
         "Algorithm: " +
         algo + ".";
}

}  // namespace

void judge_nccl_bench(NcclBenchReport& rep) {
  std::vector<Finding> f;
  could_not_run_findings(rep, f);
  rep.busbw_on = large_busbw_stats(rep.gdr_on);
  rep.busbw_off = large_busbw_stats(rep.gdr_off);
  const NcclRunResult* on = first_usable(rep.gdr_on);
  if (on && on->nics_driven_per_node > 0) rep.scenario.nics_driven_per_node = on->nics_driven_per_node;
  if (rep.scenario.nics_per_node.empty()) {
    rep.expectation = BandwidthExpectation{};
    rep.expectation.unknown_reason =
        "no NIC figures: run where `gdrcheck node` reads the NICs (--root for a recorded host) or give --nic-rate "
        "and --nics";
  } else {
    rep.expectation = expect_nccl_busbw(rep.scenario, rep.overrides);
  }
  if (on) {
    gdr_findings(*on, f);
    if (on->wrong_results || !on->test_errors.empty()) {
      std::vector<std::string> ev = on->test_errors;
      ev.push_back("raw output: " + on->raw_output);
      f.push_back(problem("results", on->label, Status::Critical, "nccl-tests reported wrong results or errors", ev,
                          "a data corruption or a failing GPU/NIC: run `gdrcheck node` and the vendor diagnostics"));
    }
    bandwidth_finding(rep, *on, f);
    noise_finding(rep, f);
  }
  ab_finding(rep, on, f);
  rep.units = units_line(rep);
  rep.findings = std::move(f);
  rep.status = rep.findings.empty() ? Status::Unknown : worst_status(rep.findings);
  // Nothing ran: the verdict is UNKNOWN however the findings add up.
  if (!on) rep.status = Status::Unknown;
}

}  // namespace gdrcheck
