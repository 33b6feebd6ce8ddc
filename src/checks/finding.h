// A finding: one check's verdict on one subject, with the evidence it was
// decided from and, when not OK, the fix. Checks produce findings;
// renderers print them. Status order is Nagios's: the worst wins.
#pragma once

#include <string>
#include <vector>

namespace gdrcheck {

enum class Status { Ok = 0, Warning = 1, Critical = 2, Unknown = 3 };

const char* status_name(Status s);  // "OK", "WARNING", "CRITICAL", "UNKNOWN"
// Worst of two for the exit code: CRITICAL > WARNING > UNKNOWN > OK.
// UNKNOWN ranks below real failures so that a node with a known fault
// reports the fault, but above OK: nothing unverified passes.
Status worse(Status a, Status b);
int exit_code(Status s);  // 0, 1, 2, 3

struct Finding {
  std::string check;    // "gpu", "nic", "port", "peermem", "path", "acs", "iommu", "link", "nccl", "driver"
  std::string subject;  // "GPU0", "mlx5_3", "0000:17:02.0", "GPU0-NIC0", "host"
  Status status = Status::Unknown;
  std::string summary;                // one line
  std::vector<std::string> evidence;  // "file = value", or the rule applied
  std::string fix;                    // the command, BIOS setting, kernel parameter or variable; empty when OK
  // GPUs and NICs (ids and RDMA names) this finding bears on, when the
  // subject alone does not say (a bridge on the path of GPU0 and mlx5_0).
  std::vector<std::string> affects;
};

// Builders that keep check code short.
Finding ok(std::string check, std::string subject, std::string summary, std::vector<std::string> evidence);
Finding problem(std::string check, std::string subject, Status status, std::string summary,
                std::vector<std::string> evidence, std::string fix);

Status worst_status(const std::vector<Finding>& findings);

}  // namespace gdrcheck
