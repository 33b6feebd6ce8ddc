#include "topology/path_matrix.h"

namespace gdrcheck {
namespace {

const PathCell kMissing{"?", "not computed"};

std::vector<const Endpoint*> matrix_order(const Topology& t) {
  std::vector<const Endpoint*> out;
  for (DeviceRole r : {DeviceRole::Gpu, DeviceRole::Nic, DeviceRole::Nvme, DeviceRole::Extra})
    for (const Endpoint* e : t.with_role(r)) out.push_back(e);
  return out;
}

// Printed nvidia-smi text: the codes stay exactly as printed; NCCL's view
// is the documented mapping of each code.
void fill_from_printed(const Topology& t, const std::vector<const Endpoint*>& order, TopologyPaths& p) {
  for (const Endpoint* a : order)
    for (const Endpoint* b : order) {
      auto it = t.printed_matrix.find({a->id, b->id});
      std::string code = it == t.printed_matrix.end() ? "?" : it->second;
      SmiClass smi = parse_smi_code(code);
      NcclClass nccl = nccl_from_smi(smi);
      p.smi[{a->id, b->id}] = {code, it == t.printed_matrix.end() ? "not printed" : "as printed"};
      p.nccl[{a->id, b->id}] = {nccl_path_name(nccl.path), nccl.why};
    }
}

void fill_from_tree(const Topology& t, const std::vector<const Endpoint*>& order, const NcclViewOptions& options,
                    TopologyPaths& p) {
  Topology view = nccl_view(t, options);
  for (const Endpoint* a : order)
    for (const Endpoint* b : order) {
      SmiClass smi = smi_class(t, *a, *b);
      p.smi[{a->id, b->id}] = {smi.code(), smi.why};
      const Endpoint* va = view.find(a->id);
      const Endpoint* vb = view.find(b->id);
      NcclClass nc = va && vb ? nccl_class(view, *va, *vb) : NcclClass{NcclPath::Unknown, "not in NCCL's view"};
      p.nccl[{a->id, b->id}] = {nccl_path_name(nc.path), nc.why};
    }
}

// Rank of an nvidia-smi code for "closest": X < NV# < PIX < PXB < PHB < NODE < SYS < ?.
int closeness(const std::string& code) {
  return static_cast<int>(parse_smi_code(code).path);
}

// A NIC whose path to the GPU is not proven may be the closest one, so the
// GPU's closest NICs are then undecided (left empty).
bool unproven_to_any(const Endpoint& gpu, const std::vector<const Endpoint*>& nics) {
  for (const Endpoint* n : nics)
    if (!unproven_path_between(gpu, *n).empty()) return true;
  return false;
}

void fill_closest(const Topology& t, TopologyPaths& p) {
  auto nics = t.with_role(DeviceRole::Nic);
  for (const Endpoint* g : t.with_role(DeviceRole::Gpu)) {
    ClosestNic c;
    c.gpu = g->id;
    if (unproven_to_any(*g, nics)) {
      p.closest.push_back(std::move(c));
      continue;
    }
    int best = static_cast<int>(SmiPath::Unknown);
    for (const Endpoint* n : nics) {
      int rank = closeness(p.smi_at(g->id, n->id).code);
      if (rank < best) {
        best = rank;
        c.nics.clear();
      }
      if (rank == best && rank != static_cast<int>(SmiPath::Unknown)) c.nics.push_back(n->id);
    }
    if (!c.nics.empty()) {
      c.smi_code = p.smi_at(g->id, c.nics.front()).code;
      c.nccl_code = p.nccl_at(g->id, c.nics.front()).code;
    }
    p.closest.push_back(std::move(c));
  }
}

}  // namespace

const PathCell& TopologyPaths::smi_at(const std::string& a, const std::string& b) const {
  auto it = smi.find({a, b});
  return it == smi.end() ? kMissing : it->second;
}

const PathCell& TopologyPaths::nccl_at(const std::string& a, const std::string& b) const {
  auto it = nccl.find({a, b});
  return it == nccl.end() ? kMissing : it->second;
}

TopologyPaths compute_paths(const Topology& t, const NcclViewOptions& options) {
  TopologyPaths p;
  auto order = matrix_order(t);
  for (const Endpoint* e : order) p.ids.push_back(e->id);
  if (t.kind == SourceKind::SmiText)
    fill_from_printed(t, order, p);
  else
    fill_from_tree(t, order, options, p);
  fill_closest(t, p);
  return p;
}

}  // namespace gdrcheck
