#include "evidence/nccl_completion.h"

#include <cctype>

namespace gdrcheck {

// The IB work-completion status of "Got completion from peer P with error
// N, ..." (<= 2.18: net_ib.cc:ncclIbTest@v2.18.1-1), "with status=N ..."
// (2.19+) or "with status=NAME(N) ..." (transport/net_ib/p2p.cc@v2.30.7-1);
// nullopt when the line is not one.
std::optional<int> nccl_completion_status(std::string_view msg) {
  auto at = msg.find("Got completion from peer");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = msg.substr(at);
  for (std::string_view key : {std::string_view(" with error "), std::string_view(" with status=")}) {
    auto k = rest.find(key);
    if (k == std::string_view::npos) continue;
    std::string_view v = rest.substr(k + key.size());
    if (auto open = v.find('('); open != std::string_view::npos && open < 32 && (v.empty() || !isdigit(v[0])))
      v = v.substr(open + 1);  // "IBV_WC_RETRY_EXC_ERR(12)"
    int n = 0, digits = 0;
    while (digits < 3 && digits < static_cast<int>(v.size()) && isdigit(static_cast<unsigned char>(v[digits])))
      n = n * 10 + (v[digits++] - '0');
    if (digits) return n;
  }
  return std::nullopt;
}

// What a completion status means for the job, with the hint NCCL itself
// prints for it (transport/net_ib/common.h:printIbWcStatusHint@v2.30.7-1).
std::string nccl_completion_meaning(int status) {
  std::string s = "IB completion error " + std::to_string(status);
  switch (status) {
    case 4:
      return s +
             " (local protection): with GPUDirect RDMA usually PCIe ACS or the IOMMU redirecting peer-to-peer "
             "traffic; NCCL's hint: NCCL_NET_GDR_LEVEL=LOC confirms it, disable ACS to fix it";
    case 5:
      return s +
             " (work request flushed): follows an earlier error on the same connection; NCCL's hint: NICs of "
             "one instance that cannot reach each other";
    case 12:
      return s +
             " (transport retry counter exceeded): the peer did not answer in time (link, fabric or a peer "
             "that died); NCCL's hint: NCCL_IB_TIMEOUT may be too short (default 20, about 30 s)";
    case 13:
      return s + " (RNR retry counter exceeded): the peer had no receive posted in time";
    case 9:
      return s + " (remote invalid request)";
    case 10:
      return s + " (remote access error): the peer refused the memory access (registration or keys)";
    default:
      return s;
  }
}

}  // namespace gdrcheck
