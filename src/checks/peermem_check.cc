// `peermem`: how the NIC can reach GPU memory — nvidia_peermem loaded and
// registered with the RDMA core (the files NCCL tests), the legacy
// nv_peer_mem, or the DMA-BUF path's preconditions (open kernel module,
// kernel >= 5.12, Turing or newer). "Loaded but not registered" is its own
// finding: the module is there but the RDMA stack never saw it.
#include "checks/node_evidence.h"
#include "host/capture_extent.h"
#include "host/device_ids.h"
#include "host/driver_info.h"

namespace gdrcheck {
namespace {

bool peermem_file_present(const HostState& h, const char* path) {
  auto it = h.peermem_files.find(path);
  return it != h.peermem_files.end() && it->second;
}

bool registered(const HostState& h) {
  return peermem_file_present(h, kPeermemNvMem) || peermem_file_present(h, kPeermemNvMemNc);
}

int min_gpu_sm(const Topology& t) {
  int sm = 0;
  for (const Endpoint* g : t.with_role(DeviceRole::Gpu)) {
    if (g->node < 0) continue;
    auto info = nvidia_gpu_info(t.nodes[g->node].device, g->model);
    int s = info ? info->sm : 0;
    if (s == 0) return 0;
    sm = sm == 0 ? s : std::min(sm, s);
  }
  return sm;
}

std::vector<std::string> peermem_evidence(const HostState& h) {
  std::vector<std::string> ev;
  for (const auto& [path, there] : h.peermem_files) ev.push_back(path + (there ? ": present" : ": absent"));
  ev.push_back("/sys/kernel/mm/memory_peers: " +
               (h.memory_peers_dir ? (h.memory_peers.empty() ? std::string("empty") : "entries present")
                                   : std::string("absent")));
  return ev;
}

Finding no_module_finding(const NodeEvidence& e, GdrHostFacts facts, std::vector<std::string> ev) {
  if (facts.dmabuf_possible == Tri::Yes && facts.ibv_reg_dmabuf_mr == Tri::No) {
    facts.dmabuf_possible = Tri::No;
    facts.dmabuf_reason = facts.rdma_core + " has no ibv_reg_dmabuf_mr (rdma-core v34+)";
  }
  ev.push_back("DMA-BUF: " + facts.dmabuf_reason);
  if (facts.dmabuf_possible == Tri::Yes)
    return ok("peermem", "host",
              "no peer-memory module; the DMA-BUF path is available (" + facts.dmabuf_reason +
                  "); files cannot prove the runtime probe succeeds",
              ev);
  std::string fix =
      "load nvidia-peermem (modprobe nvidia-peermem; persist in /etc/modules-load.d/; needs MLNX_OFED/DOCA-OFED) "
      "or use the DMA-BUF path: NVIDIA open kernel module (R515+) on Linux >= 5.12";
  if (facts.dmabuf_possible == Tri::Unknown)
    return problem("peermem", "host", Status::Unknown,
                   "no peer-memory module, and whether DMA-BUF is possible could not be told", ev, fix);
  // A root without /sys/module cannot show a peer-memory module at all.
  if (auto area = e.host.not_captured("/sys/module/nvidia_peermem")) {
    ev.push_back(not_captured_evidence(*area));
    return problem("peermem", "host", Status::Unknown,
                   "peer-memory modules not captured (the root has no " + *area + "); DMA-BUF is not possible (" +
                       facts.dmabuf_reason + ")",
                   ev, copy_advice({*area}));
  }
  return problem("peermem", "host", Status::Critical,
                 "neither a peer-memory module nor the DMA-BUF path: NCCL cannot use GPUDirect RDMA", ev, fix);
}

}  // namespace

GdrHostFacts gdr_host_facts(const Topology& t, const HostState& h) {
  GdrHostFacts f;
  f.memory_peers_dir = h.memory_peers_dir ? Tri::Yes : Tri::No;
  if (h.rdma_core) {
    f.rdma_core = "rdma-core v" + std::to_string(h.rdma_core->release) + " (" + h.rdma_core->path + ")";
    f.ibv_reg_dmabuf_mr = h.rdma_core->release >= 34 ? Tri::Yes : Tri::No;
  }
  for (const char* p : {kPeermemNvMem, kPeermemNvMemNc, kPeermemNvidiaPeermem, kPeermemModule, kPeermemLegacyModule})
    if (auto it = h.peermem_files.find(p); it != h.peermem_files.end()) f.peermem_files[p] = it->second;
  std::optional<NvidiaDriver> driver = parse_nvidia_version(h.nvidia_version.value.value_or(""));
  KernelRelease kernel = parse_kernel_release(h.kernel_release.value.value_or("")).value_or(KernelRelease{});
  int sm = min_gpu_sm(t);
  if (!driver || kernel.major == 0) {
    f.dmabuf_possible = Tri::Unknown;
    f.dmabuf_reason = !driver ? "NVIDIA driver version unknown (" + h.nvidia_version.evidence() + ")"
                              : "kernel release unknown (" + h.kernel_release.evidence() + ")";
    return f;
  }
  std::string k = std::to_string(kernel.major) + "." + std::to_string(kernel.minor);
  if (!driver->open_module)
    f.dmabuf_reason = "proprietary NVIDIA kernel module " + driver->version + " (DMA-BUF needs the open module)";
  else if (driver->major < 515)
    f.dmabuf_reason = "open kernel module " + driver->version + " is older than R515";
  else if (!kernel.at_least(5, 12))
    f.dmabuf_reason = "kernel " + k + " is older than 5.12";
  else if (sm != 0 && sm < 75)
    f.dmabuf_reason = "a GPU older than Turing";

  else {
    f.dmabuf_possible = sm == 0 ? Tri::Unknown : Tri::Yes;
    f.dmabuf_reason =
        "open kernel module " + driver->version + ", kernel " + k + (sm == 0 ? ", GPU generation unknown" : "");
    return f;
  }
  f.dmabuf_possible = Tri::No;
  return f;
}

std::vector<Finding> check_peermem(const NodeEvidence& e) {
  if (!e.has_gpus()) return {};
  const HostState& h = e.host;
  std::vector<std::string> ev = peermem_evidence(h);
  bool peermem_loaded = h.modules.count("nvidia_peermem") && h.modules.at("nvidia_peermem").loaded;
  bool legacy_loaded = h.modules.count("nv_peer_mem") && h.modules.at("nv_peer_mem").loaded;
  GdrHostFacts facts = gdr_host_facts(e.topology, h);

  if (legacy_loaded && registered(h))
    return {problem("peermem", "host", Status::Warning,
                    "legacy nv_peer_mem is loaded and registered: works, but is deprecated since CUDA 11.5", ev,
                    "replace it with nvidia-peermem (rmmod nv_peer_mem; modprobe nvidia-peermem)")};
  if (peermem_loaded && registered(h))
    return {ok("peermem", "host", "nvidia_peermem loaded and registered with the RDMA core (nv_mem)", ev)};
  if (peermem_loaded && !h.memory_peers_dir)
    return {ok("peermem", "host",
               "nvidia_peermem loaded; this RDMA stack does not list registrations in /sys/kernel/mm/memory_peers "
               "(current MLNX_OFED/DOCA on 6.x kernels): NCCL >= 2.23 finds the module, NCCL <= 2.22 does not (see "
               "the nccl findings); `gdrcheck bench rdma` proves registration",
               ev)};
  if (peermem_loaded || legacy_loaded)
    return {problem("peermem", "host", Status::Warning,
                    std::string(peermem_loaded ? "nvidia_peermem" : "nv_peer_mem") +
                        " is loaded, but /sys/kernel/mm/memory_peers lists no nv_mem client: registration cannot be "
                        "confirmed from files",
                    ev,
                    "run `gdrcheck bench rdma` (ib_write_bw with GPU memory) to prove registration; if it fails, "
                    "rebuild the module against the installed MLNX_OFED/DOCA-OFED and reload it (modprobe -r "
                    "nvidia_peermem && modprobe nvidia_peermem)")};
  return {no_module_finding(e, facts, ev)};
}

}  // namespace gdrcheck
