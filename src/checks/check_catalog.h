// Every check `gdrcheck node` runs: its stable id, what it looks at and the
// statuses it can give. `--list-checks` prints it, the site policy refuses
// ids that are not in it (a typo would otherwise override nothing,
// silently), and a test keeps it in step with the checks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "checks/finding.h"

namespace gdrcheck {

struct CheckInfo {
  std::string_view id;           // "iommu"
  std::string_view looks_at;     // one line: the evidence and what is judged
  std::vector<Status> statuses;  // what its findings can say
};

// In the order the node report lists the checks.
const std::vector<CheckInfo>& check_catalog();

// The entry for `id`, or nullptr.
const CheckInfo* find_check(std::string_view id);

// "gpu, nic, port, ..." for messages that list the valid ids.
std::string check_ids_text();

}  // namespace gdrcheck
