// How NCCL reads its settings' values, per release: the CR a CRLF conf file
// leaves in a value, and integer parameters (src/misc/param.cc).
#pragma once

#include "host/nccl_settings.h"
#include "nccl/nccl_version.h"

namespace gdrcheck {

// The settings as a given release reads them: before 2.30.3 a conf line's
// trailing CR stays part of the value (src/misc/param.cc:setEnvFile@v2.29.7-1
// keeps it; @v2.30.3-1 strips it), so "LOC\r" is no level and "mlx5_3\r"
// names no device. Integer parameters still parse (strtoll stops at the CR).
NcclSettings settings_seen_by(const NcclSettings& s, const NcclVersion& version);

// NCCL's integer parameters (src/misc/param.cc:ncclLoadParam): strtoll with
// base 0; only a range error keeps the default, so text that is not a number
// reads as 0 ("NCCL_IB_DISABLE=yes" does not disable IB). Unset or empty:
// the default.
long long nccl_int_param(const NcclSettings& s, const char* name, long long default_value);

}  // namespace gdrcheck
