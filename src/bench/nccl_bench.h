// One nccl-tests run through a launcher, and what its raw output proves: the
// whole output (stdout and stderr interleaved) goes to a file as it arrives,
// then the file is read with the analyzers of `gdrcheck analyze` — the
// nccl-tests table and the NCCL INFO lines in it.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyze/artifact.h"
#include "bench/launcher.h"

namespace gdrcheck {

// GPUDirect RDMA proof on one node, from its channel lines.
struct NodeGdrProof {
  std::string host;  // "" when the log masks or omits host names
  std::size_t connections = 0, gdr = 0;
  std::size_t send = 0, send_gdr = 0, recv = 0, recv_gdr = 0;
  std::vector<int> net_devices;  // NET/<plugin>/<dev> numbers seen, sorted
};

// One table row, as judged: out-of-place figures (in-place when the row
// printed only that half).
struct BusbwPoint {
  std::uint64_t size = 0;       // bytes
  double algbw = 0, busbw = 0;  // GB/s (1e9 bytes)
  std::optional<double> in_place_busbw;
};

struct NcclRunResult {
  std::string label;     // "gdr-on-1", "gdr-off-2"
  bool gdr_off = false;  // the A/B arm with NCCL_NET_GDR_LEVEL=LOC
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::string> env_unset;
  std::string raw_output;  // the file holding everything the run printed
  std::string end;         // "exit status 0", "timed out after 600 s", ...
  double seconds = 0;
  // Non-empty: the test could not run (binary missing, launcher failed,
  // hang, no table). Its figures are then not judged.
  std::string could_not_run;

  GdrVerdict gdr = GdrVerdict::Unknown;
  std::string gdr_why;
  std::string nccl_version, net_transport;
  std::vector<std::string> net_devices;  // "mlx5_0:1/IB" as NCCL listed them
  std::size_t connections = 0, gdr_connections = 0;
  std::vector<NodeGdrProof> nodes;
  std::vector<NcclReason> reasons;  // the log lines that say why GDR was not used
  std::vector<std::string> hosts;   // from the rank lines, else from the log
  std::string algorithm;            // NCCL_ALGO as the log echoed it, "" when not
  std::vector<BusbwPoint> table;
  std::optional<BusbwPoint> large;  // the largest message size's row
  std::optional<double> avg_busbw;
  bool wrong_results = false;
  std::vector<std::string> test_errors;
  int nics_driven_per_node = 0;  // most distinct NET devices one node used
};

struct NcclRunSpec {
  std::string label;
  bool gdr_off = false;
  LaunchCommand command;
  std::vector<std::string> env_unset;
  std::chrono::seconds timeout{600};
  // A fresh path (raw_output_file.h) in a private directory
  // (private_output_dir.h); read back only as a regular file this user owns.
  std::string raw_output;
};

// Runs it, keeps the output in spec.raw_output, and reads it.
NcclRunResult run_nccl_test(const NcclRunSpec& spec);

// What an analyzed raw output holds (pure; the run fields are left alone).
void summarize_nccl_output(const Artifact& artifact, NcclRunResult& result);

// The largest-size row of the first run with rows; nullopt when none.
std::optional<BusbwPoint> large_message_point(const NcclTestsReport& report);

// Per-node proof from the connections (pure).
std::vector<NodeGdrProof> gdr_proof_per_node(const std::vector<NcclConnection>& connections);

}  // namespace gdrcheck
