// Reads one `gdrcheck node --json` report (schema gdrcheck.node/1) into the
// few facts the cluster view needs. Anything that is not such a report —
// empty, truncated, garbage, another schema, a field of the wrong type —
// is refused with a reason the cluster view prints ("not a valid report:
// <why>"); a refused report never counts as a checked node.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/finding.h"

namespace gdrcheck {

struct ReportPort {
  std::string nic;  // mlx5_0
  int port = 0;
  std::string state;  // "ACTIVE", "" when unknown
  std::optional<double> rate_gbps;
};

struct ReportPair {
  std::string gpu, nic_name, path, nccl_path, gdr_send, gdr_recv;
  Status status = Status::Unknown;
};

struct ReportFinding {
  std::string check, subject, summary, fix;
  Status status = Status::Unknown;
};

struct NodeReportFacts {
  std::string host;  // the report's own "host"
  // "generated_at" as seconds since the epoch; absent in reports of older
  // versions (such a report is judged, never drained: cluster/drain.h).
  std::optional<std::int64_t> generated_at;
  Status status = Status::Unknown;
  std::string nccl_version;
  std::optional<std::string> kernel;
  std::vector<std::string> gpu_models;  // one per GPU
  std::vector<std::string> nic_models;  // one per NIC
  std::vector<std::string> firmware;    // one per NIC that has one
  std::vector<ReportPort> ports;
  std::vector<ReportPair> pairs;
  std::vector<ReportFinding> findings;
  // Fields added to gdrcheck.node/1 later: absent in reports of older
  // versions, which the fingerprint then shows as unknown.
  std::optional<std::string> driver;                                // "550.90.07 open"
  std::optional<std::string> peer_memory;                           // "nvidia_peermem", "none", ...
  std::optional<std::map<std::string, std::string>> nccl_settings;  // NAME -> value
  std::optional<std::vector<std::string>> iommu_group_types;
  nlohmann::json inventory;  // the manifest-shaped facts, or null
};

struct NodeReportRead {
  std::optional<NodeReportFacts> facts;
  std::string problem;  // why `facts` is empty: "empty output", "not JSON (...)", ...
};

NodeReportRead read_node_report(std::string_view raw);

// "OK" -> Status::Ok ...; nullopt for anything else.
std::optional<Status> parse_status_name(std::string_view name);

}  // namespace gdrcheck
