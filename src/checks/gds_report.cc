#include "checks/gds_report.h"

#include "checks/gds_checks.h"
#include "checks/gds_paths.h"
#include "evidence/cufile_config.h"

namespace gdrcheck {

GdsReport build_gds_report(const GdsState& g, const std::string& host, const NodeEvidence* node) {
  GdsReport r;
  r.host = host;
  r.root = g.root;
  r.cufile = g.cufile_path.value_or("");
  std::optional<CufileConfig> config;
  if (g.cufile_path && g.cufile_text) config = parse_cufile_config(*g.cufile_text, *g.cufile_path);
  // Without an NVIDIA GPU there is no GPUDirect Storage to check (as node
  // says of GPUDirect RDMA): one UNKNOWN, not warnings about its driver.
  if (g.nvidia_gpus && *g.nvidia_gpus == 0) {
    r.findings = {problem("gds.gpu", "host", Status::Unknown,
                          "no NVIDIA GPU found: nothing to check for GPUDirect Storage",
                          {"no function with vendor 0x10de and class 0x03xx under /sys/bus/pci/devices"},
                          "run gdrcheck gds on a GPU node")};
    r.status = Status::Unknown;
    return r;
  }
  r.findings = check_gds_driver(g);
  auto cufile = check_gds_cufile(g, config);
  r.findings.insert(r.findings.end(), cufile.begin(), cufile.end());
  auto mounts = check_gds_mounts(g, config);
  r.findings.insert(r.findings.end(), mounts.begin(), mounts.end());
  if (node) {
    GdsPaths paths;
    auto placement = check_gds_placement(*node, g, paths);
    r.findings.insert(r.findings.end(), placement.begin(), placement.end());
    auto rdma = check_gds_rdma(*node, g, config, paths);
    r.findings.insert(r.findings.end(), rdma.begin(), rdma.end());
    auto lnet = check_gds_lnet(*node, g, paths);
    r.findings.insert(r.findings.end(), lnet.begin(), lnet.end());
    auto peermem = check_gds_peermem(*node, g, config);
    r.findings.insert(r.findings.end(), peermem.begin(), peermem.end());
    auto judged = check_gds_paths(*node, paths);
    r.findings.insert(r.findings.end(), judged.begin(), judged.end());
    auto p2pdma = check_gds_p2pdma(*node, g, config);
    r.findings.insert(r.findings.end(), p2pdma.begin(), p2pdma.end());
  }
  r.status = worst_status(r.findings);
  return r;
}

std::vector<Finding> gds_findings_for_node(const GdsState& g, const NodeEvidence& node) {
  GdsReport r = build_gds_report(g, "", &node);
  std::vector<Finding> out;
  for (auto& f : r.findings)
    if (f.check != "gds.gpu") out.push_back(std::move(f));  // the node's gpu check says it
  return out;
}

}  // namespace gdrcheck
