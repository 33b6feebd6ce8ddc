#include "evidence/nccl_warning.h"

#include "evidence/log_scan.h"
#include "evidence/nccl_completion.h"
#include "evidence/nccl_log_messages.h"

namespace gdrcheck {
namespace {

using scan::contains;
using scan::contains_word;
using scan::icontains;

// Backquotes of inline code, straight and curly quotes (U+201C, U+201D in
// UTF-8) that a poster put around a quoted WARN.
std::string_view strip_quotes(std::string_view s) {
  for (bool again = true; again && !s.empty();) {
    again = false;
    if (s.back() == '`' || s.back() == '"' || scan::is_space(s.back())) {
      s.remove_suffix(1);
      again = true;
    } else if (s.ends_with("\xE2\x80\x9C") || s.ends_with("\xE2\x80\x9D")) {
      s.remove_suffix(3);
      again = true;
    }
  }
  return s;
}

// "Call to ibv_create_qp failed", "Call to ibv_reg_dmabuf_mr failed with
// error Operation not supported" (misc/ibvwrap.cc, and the plugin's
// ibvwrap.c): the verbs function's name.
std::string_view failed_verbs_call(std::string_view msg) {
  auto at = msg.find("Call to ibv_");
  if (at == std::string_view::npos) return {};
  std::string_view name = msg.substr(at + 8);
  std::size_t n = 0;
  while (n < name.size() && (scan::is_alnum(name[n]) || name[n] == '_')) ++n;
  name = name.substr(0, n);
  return contains(msg.substr(at + 8 + n), " failed") ? name : std::string_view();
}

// Calls made while the IB transport looks for devices (ncclIbInit,
// transport/net_ib.cc@v2.21.5-1): a failure there skips the device ("continue")
// and NCCL can still choose another network. Every other verbs call is
// made while a connection is set up (ncclIbCreateQp, the memory
// registrations), where NCCLCHECK returns ncclSystemError to the caller
// (misc/ibvwrap.cc:IBV_PTR_CHECK@v2.21.5-1): the communicator is not made.
bool is_init_call(std::string_view call) {
  for (std::string_view c : {"ibv_get_device_list", "ibv_open_device", "ibv_query_device", "ibv_query_port",
                             "ibv_fork_init", "ibv_get_async_event", "ibv_query_gid", "ibv_close_device"})
    if (call == c) return true;
  return false;
}

NcclWarningReason verbs_reason(std::string_view call, std::string_view msg) {
  if (call == "ibv_reg_dmabuf_mr")
    return {"dmabuf_registration_failed", std::string(call),
            "the NIC could not register GPU memory through DMA-BUF (" + clip(msg) +
                "): the RDMA driver or rdma-core does not support DMA-BUF registration; NCCL_DMABUF_ENABLE=0 makes "
                "NCCL use the peer-memory module (nvidia_peermem) instead"};
  if (is_init_call(call))
    return {"ib_init_failed", std::string(call),
            "NCCL's " + std::string(call) + " call failed (" + clip(msg) +
                "): the IB transport skips that device, and without another it falls back to another network "
                "(sockets)"};
  return {"ib_verbs_failed", std::string(call),
          "NCCL's " + std::string(call) +
              " call failed: the IB transport could not create what a connection needs and NCCL returns a system "
              "error (" +
              clip(msg) +
              "); check the locked-memory limit (ulimit -l, often low in containers) and the RDMA device's "
              "resources"};
}

}  // namespace

std::vector<NcclWarningReason> nccl_warning_reasons(std::string_view msg) {
  msg = strip_quotes(msg);
  std::vector<NcclWarningReason> out;
  if (auto status = nccl_completion_status(msg))
    out.push_back({"ib_completion_error", std::to_string(*status),
                   nccl_completion_meaning(*status) + ": the job's network transfers failed"});
  bool prot = contains(msg, "IBV_WC_LOC_PROT_ERR") || icontains(msg, "local protection") || contains_word(msg, "ACS") ||
              (icontains(msg, "completion") && (contains(msg, "error 4,") || contains(msg, "status=4 ")));
  if (prot) {
    out.push_back({"acs_hint", "",
                   "the NIC hit a local protection error (IB completion status 4): with GPUDirect RDMA this usually "
                   "means PCIe ACS or the IOMMU redirects peer-to-peer traffic; NCCL_NET_GDR_LEVEL=LOC confirms it"});
  } else if (auto call = failed_verbs_call(msg); !call.empty()) {
    out.push_back(verbs_reason(call, msg));
  } else if (contains_word(msg, "GID") || icontains(msg, "gid index")) {
    out.push_back({"roce_gid", "", "RoCE GID problem: " + clip(msg) + " (check NCCL_IB_GID_INDEX / RoCE v2 GIDs)"});
  } else if (msg.starts_with("NET/") || contains(msg, "NET/IB")) {
    out.push_back({"net_error", "", "network transport warning: " + clip(msg)});
  } else {
    out.push_back({"nccl_warn", "", "NCCL warning: " + clip(msg)});
  }
  return out;
}

}  // namespace gdrcheck
