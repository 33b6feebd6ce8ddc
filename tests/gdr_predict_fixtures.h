// Hand-built NCCL-style (Switches) trees and prediction inputs for the
// tests of the NCCL model: a CPU, switches, GPUs and NICs placed by hand,
// H100 facts, settings, and ways to look into a prediction.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "host/nccl_settings.h"
#include "nccl/gdr_predict.h"
#include "nccl_versions.h"
#include "topology/path_class.h"
#include "topology/topology.h"

namespace gdrcheck::predict_testing {

using testing::nccl_version;

inline constexpr const char* kNvMem = kPeermemNvMem;
inline constexpr const char* kNvMemNc = kPeermemNvMemNc;
inline constexpr const char* kNvidiaPeermem = kPeermemNvidiaPeermem;
inline constexpr const char* kModNvidiaPeermem = kPeermemModule;
inline constexpr const char* kModNvPeerMem = kPeermemLegacyModule;

// ---- building topologies -------------------------------------------------------

class Topo {
 public:
  Topo() {
    t.kind = SourceKind::NcclXml;
    t.tree = TreeStyle::Switches;
  }

  int cpu(int numa) {
    PciNode n;
    n.kind = PciNode::Kind::Cpu;
    n.label = "CPU" + std::to_string(numa);
    n.locality.numa = numa;
    return t.add_node(n);
  }

  int sw(int parent) {
    PciNode n;
    n.kind = PciNode::Kind::Bridge;
    n.parent = parent;
    n.address = PciAddress{0, static_cast<uint8_t>(next_bus_++), 0, 0};
    return t.add_node(n);
  }

  // GPUn in creation order, NVML index n.
  Endpoint& gpu(int parent) {
    Endpoint& e = device(parent, DeviceRole::Gpu, "GPU" + std::to_string(gpus_++));
    e.attributes["dev"] = std::to_string(gpus_ - 1);
    return e;
  }

  Endpoint& nic(int parent, const std::string& name, int port = 1) {
    Endpoint& e = device(parent, DeviceRole::Nic, "NIC" + std::to_string(nics_++));
    e.name = name;
    e.attributes["port"] = std::to_string(port);
    return e;
  }

  Endpoint& ep(const std::string& id) {
    for (auto& e : t.endpoints)
      if (e.id == id) return e;
    ADD_FAILURE() << "no endpoint " << id;
    return t.endpoints.front();
  }

  void nvlink(const std::string& a, const std::string& b) {
    ep(a).nvlinks.push_back({ep(b).address->str(), 4, 0x030200});
    ep(b).nvlinks.push_back({ep(a).address->str(), 4, 0x030200});
  }

  // The device's PCIe link (max = current).
  void link(const std::string& id, double gts, int width) {
    PciLink& l = t.nodes[static_cast<std::size_t>(ep(id).node)].link;
    l.max_gts = l.current_gts = gts;
    l.max_width = l.current_width = width;
  }

  Topology t;

 private:
  Endpoint& device(int parent, DeviceRole role, const std::string& id) {
    PciNode n;
    n.kind = PciNode::Kind::Device;
    n.parent = parent;
    n.address = PciAddress{0, static_cast<uint8_t>(next_bus_++), 0, 0};
    Endpoint e;
    e.id = id;
    e.role = role;
    e.address = n.address;
    e.node = t.add_node(n);
    t.endpoints.push_back(e);
    return t.endpoints.back();
  }

  int next_bus_ = 0x10, gpus_ = 0, nics_ = 0;
};

// CPU0 ─ switch ─ {GPU0, NIC0 mlx5_0}
inline Topo pix() {
  Topo b;
  int s = b.sw(b.cpu(0));
  b.gpu(s);
  b.nic(s, "mlx5_0");
  return b;
}

// CPU0 ─ switch ─ {switch ─ GPU0, switch ─ NIC0}
inline Topo pxb() {
  Topo b;
  int top = b.sw(b.cpu(0));
  b.gpu(b.sw(top));
  b.nic(b.sw(top), "mlx5_0");
  return b;
}

// CPU0 ─ {switch ─ GPU0, switch ─ NIC0}
inline Topo phb() {
  Topo b;
  int c = b.cpu(0);
  b.gpu(b.sw(c));
  b.nic(b.sw(c), "mlx5_0");
  return b;
}

// CPU0 ─ switch ─ GPU0; CPU1 ─ switch ─ NIC0
inline Topo sys() {
  Topo b;
  b.gpu(b.sw(b.cpu(0)));
  b.nic(b.sw(b.cpu(1)), "mlx5_0");
  return b;
}

// Two GPUs, each with its own NIC behind its own switch (PIX), no NVLink.
inline Topo two_pix_pairs() {
  Topo b;
  int c = b.cpu(0);
  int s0 = b.sw(c), s1 = b.sw(c);
  b.gpu(s0);
  b.gpu(s1);
  b.nic(s0, "mlx5_0");
  b.nic(s1, "mlx5_1");
  return b;
}

// ---- inputs and checks -------------------------------------------------------------

inline GdrHostFacts host_with(std::vector<std::string> present, Tri dmabuf = Tri::No,
                              std::string dmabuf_reason = "proprietary NVIDIA kernel module") {
  GdrHostFacts h;
  for (const char* f : {kNvMem, kNvMemNc, kNvidiaPeermem, kModNvidiaPeermem, kModNvPeerMem}) h.peermem_files[f] = false;
  for (const auto& f : present) h.peermem_files[f] = true;
  h.dmabuf_possible = dmabuf;
  h.dmabuf_reason = std::move(dmabuf_reason);
  return h;
}

// H100s (sm 90) with nv_mem present, no DMA-BUF, newest NCCL, no settings.
inline GdrPredictInput input(const Topology& t, int sm = 90, NcclVersion v = NcclVersion::newest()) {
  GdrPredictInput in;
  in.nccl_view = &t;
  // Hand-built trees show every NVLink they have: the rest have none.
  for (const auto& e : t.endpoints)
    if (e.role == DeviceRole::Gpu) {
      in.gpus[e.id].sm = sm;
      in.gpus[e.id].nvlink = Tri::No;
    }
  in.host = host_with({kNvMem});
  in.version = v;
  return in;
}

inline NcclSettings env(std::vector<std::pair<std::string, std::string>> values,
                        const std::string& origin = "environment") {
  std::vector<NcclSetting> layer;
  for (auto& [n, v] : values) layer.push_back({n, v, origin});
  return merge_nccl_settings({layer});
}

inline GdrPrediction predict(const GdrPredictInput& in, const std::string& gpu = "GPU0") {
  for (auto& p : predict_gdr(in))
    if (p.gpu == gpu) return p;
  ADD_FAILURE() << "no prediction for " << gpu;
  return {};
}

inline std::string dump(const GdrPrediction& p) {
  std::string s = "send=" + std::string(tri_name(p.send)) + " recv=" + tri_name(p.recv) +
                  " path=" + nccl_path_name(p.path) + " level=" + p.level + " rules:";
  for (const auto& r : p.rules) s += "\n  " + r;
  return s;
}

inline bool has_rule(const GdrPrediction& p, const std::string& part) {
  for (const auto& r : p.rules)
    if (r.find(part) != std::string::npos) return true;
  return false;
}

#define EXPECT_RULE(p, part) EXPECT_TRUE(has_rule(p, part)) << "missing rule '" << (part) << "'\n" << dump(p)
#define EXPECT_NO_RULE(p, part) EXPECT_FALSE(has_rule(p, part)) << "unexpected rule '" << (part) << "'\n" << dump(p)

inline void expect_gdr(const GdrPrediction& p, Tri send, Tri recv) {
  EXPECT_EQ(p.send, send) << dump(p);
  EXPECT_EQ(p.recv, recv) << dump(p);
}

}  // namespace gdrcheck::predict_testing
