#include "analyze/busbw_vs_nics.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "host/text_format.h"

namespace gdrcheck {
namespace {

// Below this the busbw of a collective is still latency-bound on any
// network NCCL drives; nccl-tests' own multi-node guidance sweeps to GBs.
constexpr uint64_t kPlateauBytes = 256ull << 20;

// " (line N)" of the row measured at `size`.
std::string row_line(const NcclTestsRun& run, uint64_t size) {
  for (const auto& r : run.rows)
    if (r.size == size && r.out_of_place) return " (line " + std::to_string(r.line) + ")";
  return "";
}

bool named(const NcclNetDeviceSpeed& s) {
  return s.name.rfind("NET/", 0) != 0;
}

// "mlx5_0:1/IB" (from "NET/IB : Using") → "mlx5_0".
std::string device_of(const std::string& used) {
  return used.substr(0, used.find(':'));
}

// The NICs of one node, from the speed lines of the first host that printed
// any. Named lines beat the topology dump (which has no names); when the
// log lists the devices NCCL uses, only those count.
std::vector<NicSpec> nics_of_one_node(const NcclLogReport& log, std::string* from_host) {
  bool any_named = std::any_of(log.net_device_speeds.begin(), log.net_device_speeds.end(), named);
  std::set<std::string> used;
  for (const auto& d : log.net_devices) used.insert(device_of(d));
  std::vector<NicSpec> nics;
  std::set<std::string> seen;
  for (const auto& s : log.net_device_speeds) {
    if (any_named != named(s)) continue;
    if (nics.empty()) *from_host = s.host;
    if (s.host != *from_host) continue;
    if (any_named && !used.empty() && !used.count(s.name)) continue;
    if (!seen.insert(s.name + ":" + std::to_string(s.port.value_or(0))).second) continue;
    nics.push_back({s.name, s.speed_mbps / 1000.0, link_layer_from_name(s.link_layer), 1});
  }
  return nics;
}

// Distinct NET devices the connections of each host use; the most on any
// host. Unset when the connections do not name their host.
std::optional<int> nics_driven(const NcclLogReport& log) {
  std::map<std::string, std::set<int>> per_host;
  for (const auto& c : log.connections)
    if (!c.host.empty() && c.net != "Socket") per_host[c.host].insert(c.dev);
  std::optional<int> most;
  for (const auto& [host, devs] : per_host) most = std::max(most.value_or(0), static_cast<int>(devs.size()));
  return most;
}

// rccl-tests, an RCCL log, or AMD GPUs in the rank lines ("AMD Instinct
// MI300X"): the words for the links inside a node differ.
bool runs_on_amd_gpus(const NcclTestsRun& run, const NcclLogReport* log) {
  if (run.tool == "rccl-tests" || (log && log->rccl)) return true;
  return std::any_of(run.ranks.begin(), run.ranks.end(), [](const NcclTestsRank& r) {
    return r.gpu.starts_with("AMD ") || r.gpu.find("Instinct") != std::string::npos;
  });
}

BandwidthScenario scenario_of(const NcclTestsRun& run, const NcclLogReport* log, std::vector<std::string>& notes) {
  BandwidthScenario s;
  s.collective = collective_from_name(run.test_name);
  const std::vector<std::string>& hosts = !run.hosts.empty() || !log ? run.hosts : log->hosts;
  // A cut rank list names only some of the hosts: the node count is unknown.
  s.nodes =
      run.rank_list_cut && run.hosts.size() == hosts.size() && !run.hosts.empty() ? 0 : static_cast<int>(hosts.size());
  if (run.rank_list_cut) notes.push_back("the rank list is cut: nodes and GPUs per node are unknown");
  s.amd_gpus = runs_on_amd_gpus(run, log);
  int ranks = !run.ranks.empty() ? static_cast<int>(run.ranks.size()) : (log ? log->ranks : 0);
  if (s.nodes > 0 && ranks % s.nodes == 0) s.gpus_per_node = ranks / s.nodes;
  if (!log) return s;
  std::string host;
  s.nics_per_node = nics_of_one_node(*log, &host);
  if (!s.nics_per_node.empty())
    notes.push_back("NIC speeds from the log" + (host.empty() ? std::string() : " of " + host));
  s.nics_driven_per_node = nics_driven(*log);
  if (const NcclEnvEcho* algo = log->env_value("NCCL_ALGO")) s.algorithm = algorithm_from_name(algo->value);
  return s;
}

BandwidthJudgement unknown_judgement(const std::string& why) {
  BandwidthJudgement j;
  j.status = Status::Unknown;
  j.summary = "busbw not related to the NICs: " + why;
  return j;
}

}  // namespace

BusbwVsNics compare_busbw_with_nics(const NcclTestsRun& run, const NcclLogReport* log,
                                    const BandwidthOverrides& overrides) {
  BusbwVsNics c;
  c.measured_busbw = run.max_busbw;
  c.measured_size = run.max_busbw_size;
  std::vector<std::string> notes;
  c.scenario = scenario_of(run, log, notes);
  if (!c.measured_busbw) {
    c.judgement = unknown_judgement("the run has no out-of-place busbw");
    return c;
  }
  c.expectation = expect_nccl_busbw(c.scenario, overrides);
  bool nics_needed = c.scenario.nodes >= 2 && !c.expectation.site_figure;
  if (nics_needed && c.scenario.nics_per_node.empty()) {
    c.judgement = unknown_judgement(
        "the output prints no NIC speed (NCCL 2.27+ prints it with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET; "
        "or give the site figure in the bandwidth file)");
    return c;
  }
  c.judgement = judge_busbw(c.expectation, *c.measured_busbw);
  if (c.expectation.known && c.measured_size)
    c.judgement.evidence.insert(c.judgement.evidence.begin(),
                                "largest out-of-place busbw " + fixed(*c.measured_busbw, 1) + " GB/s at " +
                                    bytes_text(*c.measured_size) + row_line(run, *c.measured_size));
  for (auto& n : notes) c.judgement.evidence.push_back(std::move(n));
  if (c.measured_size && *c.measured_size < kPlateauBytes && c.judgement.status != Status::Ok &&
      c.judgement.status != Status::Unknown) {
    c.judgement.status = Status::Warning;
    c.judgement.evidence.push_back("the largest message is " + bytes_text(*c.measured_size) +
                                   ": busbw may not have reached its plateau");
    c.judgement.fix = "rerun with -e 8G (or larger) so that the busbw levels off" +
                      (c.judgement.fix.empty() ? std::string() : "; if it stays low: " + c.judgement.fix);
  }
  return c;
}

}  // namespace gdrcheck
