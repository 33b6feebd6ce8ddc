// --nccl-version as `node` and `analyze` take it: a 2.x release gdrcheck has
// rules for (a newer 2.x is kept and predicted with the newest rules);
// anything else is a CLI::ValidationError naming the known range.
#pragma once

#include <string>

#include "nccl/nccl_version.h"

namespace gdrcheck {

NcclVersion nccl_version_option(const std::string& text);

}  // namespace gdrcheck
