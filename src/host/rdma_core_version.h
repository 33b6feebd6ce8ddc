// The rdma-core release whose libibverbs a root holds, read from the
// library's file name: libibverbs.so.1.<abi>.<release>.0 (rdma-core names
// its libraries this way, e.g. libibverbs.so.1.14.50.0 for v50). It matters
// for DMA-BUF: ibv_reg_dmabuf_mr (symbol version IBVERBS_1.12) first shipped
// in rdma-core v34, and NCCL looks it up at run time
// (src/misc/ibvsymbols.cc:buildIbvSymbols@v2.30.7-1).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "host/root.h"

namespace gdrcheck {

struct RdmaCoreLibrary {
  std::string path;  // the versioned libibverbs file, inside the root
  int release = 0;   // rdma-core release (the third number); 0 = unreadable
};

// "libibverbs.so.1.14.50.0" → 50; nullopt for other names.
std::optional<int> rdma_core_release_of(std::string_view file_name);

// The newest libibverbs found in the usual library folders; nullopt when
// none is found (the root may not hold the libraries at all).
std::optional<RdmaCoreLibrary> find_rdma_core(const Root& root);

}  // namespace gdrcheck
