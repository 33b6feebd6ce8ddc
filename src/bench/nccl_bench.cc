#include "bench/nccl_bench.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>

#include "bench/private_output_dir.h"
#include "host/process.h"

namespace gdrcheck {
namespace {

BusbwPoint point_of(const NcclTestsRow& row) {
  BusbwPoint p;
  p.size = row.size;
  const auto& half = row.out_of_place ? row.out_of_place : row.in_place;
  if (half) {
    p.algbw = half->algbw;
    p.busbw = half->busbw;
  }
  if (row.in_place) p.in_place_busbw = row.in_place->busbw;
  return p;
}

const NcclTestsRun* first_run_with_rows(const NcclTestsReport& report) {
  for (const auto& run : report.runs)
    if (!run.rows.empty()) return &run;
  return nullptr;
}

// Why a finished process gave nothing to judge; "" when its output counts.
std::string process_problem(const ProcessResult& p) {
  switch (p.end) {
    case ProcessResult::End::NotStarted:
      return "could not start: " + p.start_error;
    case ProcessResult::End::TimedOut:
      return "hung: " + p.describe() + " (raise --timeout if the run is just slow)";
    case ProcessResult::End::Signaled:
      return "crashed: " + p.describe();
    case ProcessResult::End::Exited:
      return p.exit_code == 0 ? "" : "failed: " + p.describe();
  }
  return p.describe();
}

}  // namespace

std::vector<NodeGdrProof> gdr_proof_per_node(const std::vector<NcclConnection>& connections) {
  std::map<std::string, NodeGdrProof> by_host;
  std::map<std::string, std::set<int>> devices;
  for (const auto& c : connections) {
    NodeGdrProof& n = by_host[c.host];
    n.host = c.host;
    ++n.connections;
    n.gdr += c.gdr;
    if (c.side == NetSide::Send) {
      ++n.send;
      n.send_gdr += c.gdr;
    } else {
      ++n.recv;
      n.recv_gdr += c.gdr;
    }
    devices[c.host].insert(c.dev);
  }
  std::vector<NodeGdrProof> out;
  for (auto& [host, proof] : by_host) {
    const auto& devs = devices[host];
    proof.net_devices.assign(devs.begin(), devs.end());
    out.push_back(proof);
  }
  return out;
}

std::optional<BusbwPoint> large_message_point(const NcclTestsReport& report) {
  const NcclTestsRun* run = first_run_with_rows(report);
  if (!run) return std::nullopt;
  const NcclTestsRow* largest = &run->rows.front();
  for (const auto& row : run->rows)
    if (row.size >= largest->size) largest = &row;
  return point_of(*largest);
}

void summarize_nccl_output(const Artifact& a, NcclRunResult& r) {
  if (a.nccl_log) {
    const NcclLogReport& log = *a.nccl_log;
    r.gdr = log.verdict;
    r.gdr_why = log.verdict_why;
    r.nccl_version = log.nccl_version;
    r.net_transport = log.net_transport;
    r.net_devices = log.net_devices;
    r.connections = log.net_connections;
    r.gdr_connections = log.gdr_connections;
    r.nodes = gdr_proof_per_node(log.connections);
    r.reasons = log.reasons;
    r.hosts = log.hosts;
    if (const NcclEnvEcho* algo = log.env_value("NCCL_ALGO")) r.algorithm = algo->value;
    for (const auto& n : r.nodes) r.nics_driven_per_node = std::max<int>(r.nics_driven_per_node, n.net_devices.size());
  }
  if (a.nccl_tests) {
    if (const NcclTestsRun* run = first_run_with_rows(*a.nccl_tests)) {
      for (const auto& row : run->rows) r.table.push_back(point_of(row));
      r.avg_busbw = run->avg_busbw;
      if (!run->hosts.empty()) r.hosts = run->hosts;
    }
    r.large = large_message_point(*a.nccl_tests);
    for (const auto& run : a.nccl_tests->runs) {
      r.wrong_results |= run.rows_with_wrong > 0 || run.out_of_bounds_failed;
      r.test_errors.insert(r.test_errors.end(), run.errors.begin(), run.errors.end());
    }
  }
}

NcclRunResult run_nccl_test(const NcclRunSpec& spec) {
  NcclRunResult r;
  r.label = spec.label;
  r.gdr_off = spec.gdr_off;
  r.argv = spec.command.argv;
  r.env = spec.command.env_set;
  r.env_unset = spec.env_unset;
  r.raw_output = spec.raw_output;

  ProcessSpec p = ProcessSpec::command(spec.command.argv);
  p.env_set = spec.command.env_set;
  p.env_unset = spec.env_unset;
  p.timeout = spec.timeout;
  p.merge_stderr = true;
  p.output_file = spec.raw_output;
  p.output_limit = 1u << 20;  // the file keeps everything; the analyzers read the file
  ProcessResult done = run_process(p);
  r.end = done.describe();
  r.seconds = std::chrono::duration<double>(done.elapsed).count();
  r.could_not_run = process_problem(done);
  if (done.end == ProcessResult::End::NotStarted) {
    r.raw_output.clear();  // nothing was written
    return r;
  }
  // Read back the file that was written, never what a link put in its
  // place: the analyzers open a path, so they get this descriptor's.
  std::string problem;
  int fd = open_own_output(spec.raw_output, problem);
  if (fd < 0) {
    if (r.could_not_run.empty()) r.could_not_run = "the output file " + problem;
    return r;
  }
  Artifact a = analyze_file("/proc/self/fd/" + std::to_string(fd), ArtifactKind::NcclTests);
  ::close(fd);
  if (!a.error.empty()) {
    if (r.could_not_run.empty()) r.could_not_run = "the output file " + a.error;
    return r;
  }
  summarize_nccl_output(a, r);
  if (r.could_not_run.empty() && r.table.empty()) r.could_not_run = "no nccl-tests result table in the output";
  return r;
}

}  // namespace gdrcheck
