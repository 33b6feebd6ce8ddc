// Which parts of a host a root holds. On this machine ("/") a missing file
// is evidence: the driver is not loaded, the module is absent. A recorded
// root is a copy, and copies are partial: a capture without /proc/driver
// says nothing about the NVIDIA driver. The checks ask here before they
// turn an absence into a verdict, so "not there" and "not captured" are
// told apart by one rule.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/root.h"

namespace gdrcheck {

// The directories a capture copies as a whole, each standing for one kind
// of evidence: "/proc/driver", "/proc/modules", "/sys/module",
// "/sys/class/infiniband", "/sys/class/iommu", "/sys/kernel/mm",
// "/proc/cmdline". A path outside every area is always judged by itself.
const std::vector<std::string>& capture_areas();

// The areas a recorded root lacks, in capture_areas() order; empty for
// this machine, where nothing is "not captured".
std::vector<std::string> uncaptured_areas(const Root& root);

// The uncaptured area `path` lies in (the area itself or anything under
// it), or nullopt when the path's absence is evidence.
std::optional<std::string> uncaptured_area(const std::vector<std::string>& uncaptured, std::string_view path);

// "not captured: the root has no /proc/driver", for a finding's evidence.
std::string not_captured_evidence(const std::string& area);

// What to copy from the node into the root so the area can be judged.
std::string copy_advice(const std::vector<std::string>& areas);

}  // namespace gdrcheck
