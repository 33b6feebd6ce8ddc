// `gdrcheck bench rdma`: for each GPU and the NIC NCCL would give it,
// ib_write_bw with the buffer in that GPU's memory, against the port rate;
// and once per NIC with host memory, for comparison. Loopback on one node
// (server and client on this host), or between two nodes through the
// launcher (server on the second host, client on the first).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/bench_nics.h"
#include "bench/expected_bandwidth.h"
#include "bench/launcher.h"
#include "bench/perftest_output.h"
#include "bench/repeat_stats.h"
#include "checks/finding.h"

namespace gdrcheck {

struct PerftestOptions {
  std::string program = "ib_write_bw";
  int seconds = 5;               // -D
  unsigned long size = 1 << 20;  // -s bytes
  int qps = 2;                   // -q
  int port = 18515;              // -p (each pair gets its own, port + index)
};

enum class RdmaMemory { Gpu, Host };

// Server and client argument vectors for one pair. `server_host` is where
// the client connects ("localhost" for loopback).
struct PerftestCommands {
  std::vector<std::string> server, client;
  std::string json_file;  // the client's --out_json_file
};

PerftestCommands perftest_commands(const GpuNicPair& pair, RdmaMemory memory, const PerftestOptions& o, int port,
                                   const std::string& server_host, const std::string& json_file);

struct RdmaMeasurement {
  std::string label;  // "GPU0-mlx5_0", "host-mlx5_0"
  RdmaMemory memory = RdmaMemory::Gpu;
  std::vector<std::string> server_argv, client_argv;
  std::string raw_output;
  std::string could_not_run;
  std::vector<double> gbits;  // one per repeat that ran
  std::optional<RepeatStats> stats;
  std::vector<std::string> errors;    // perftest's own error lines
  bool gpu_buffer_confirmed = false;  // perftest printed its GPU buffer allocation
};

struct RdmaPairResult {
  std::string node;
  GpuNicPair pair;
  RdmaMeasurement gpu;
  std::optional<double> host_gbits;  // the NIC's host-memory median, for comparison
  RdmaExpectation expectation;
  std::optional<BandwidthJudgement> judgement;
};

struct RdmaBenchReport {
  std::string node;
  BenchLauncher launcher = BenchLauncher::Local;
  std::vector<std::string> hosts;  // loopback: one; two-node: server, client
  std::vector<std::string> notes;
  std::vector<RdmaMeasurement> host_runs;  // one per NIC
  std::vector<RdmaPairResult> pairs;
  std::vector<Finding> findings;
  Status status = Status::Unknown;
  std::string units;
};

// Judges every pair (pure): Gb/s median against the port rate, UNKNOWN when
// the test could not run; names each bad pair by GPU, NIC and node.
void judge_rdma_bench(RdmaBenchReport& report, const BandwidthOverrides& overrides);

struct RdmaRunOptions {
  PerftestOptions perftest;
  LaunchPlan launch;  // Local = loopback; Mpirun/Srun with two hosts
  int repeat = 1;
  std::chrono::seconds timeout{120};
  // A directory only this user can write (private_output_dir.h): the raw
  // outputs and perftest's JSON files are named inside it.
  std::string output_dir = ".";
  // Non-empty: perftest must not be run (program_trust.h says why); every
  // measurement could not run, with this reason.
  std::string program_problem;
  std::string host;  // this host's name, for file names
};

// Runs every pair (and the host-memory figure per NIC) one after the other:
// concurrent runs would share NICs and PCIe links and measure each other.
RdmaBenchReport run_rdma_bench(const NodeNicFacts& facts, const RdmaRunOptions& options);

}  // namespace gdrcheck
