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
  for (std::size_t i = 0; i < order.size(); ++i)
    for (std::size_t j = 0; j < order.size(); ++j) {
      auto it = t.printed_matrix.find({order[i]->id, order[j]->id});
      std::string code = it == t.printed_matrix.end() ? "?" : it->second;
      NcclClass nccl = nccl_from_smi(parse_smi_code(code));
      p.smi_cell(i, j) = {code, it == t.printed_matrix.end() ? "not printed" : "as printed"};
      p.nccl_cell(i, j) = {nccl_path_name(nccl.path), nccl.why};
    }
}

void fill_from_tree(const Topology& t, const std::vector<const Endpoint*>& order, const NcclViewOptions& options,
                    TopologyPaths& p) {
  Topology view = nccl_view(t, options);
  std::vector<const Endpoint*> in_view;
  for (const Endpoint* e : order) in_view.push_back(view.find(e->id));
  for (std::size_t i = 0; i < order.size(); ++i)
    for (std::size_t j = 0; j < order.size(); ++j) {
      SmiClass smi = smi_class(t, *order[i], *order[j]);
      p.smi_cell(i, j) = {smi.code(), smi.why};
      const Endpoint* va = in_view[i];
      const Endpoint* vb = in_view[j];
      NcclClass nc = va && vb ? nccl_class(view, *va, *vb) : NcclClass{NcclPath::Unknown, "not in NCCL's view"};
      p.nccl_cell(i, j) = {nccl_path_name(nc.path), nc.why};
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

void TopologyPaths::set_ids(std::vector<std::string> order) {
  ids = std::move(order);
  smi.assign(ids.size() * ids.size(), kMissing);
  nccl.assign(ids.size() * ids.size(), kMissing);
  index_.clear();
  for (std::size_t i = 0; i < ids.size(); ++i) index_[ids[i]] = i;
}

std::optional<std::size_t> TopologyPaths::index_of(const std::string& id) const {
  auto it = index_.find(id);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

const PathCell& TopologyPaths::cell_at(const std::vector<PathCell>& cells, const std::string& a,
                                       const std::string& b) const {
  auto i = index_of(a), j = index_of(b);
  return i && j && cells.size() == ids.size() * ids.size() ? cells[*i * ids.size() + *j] : kMissing;
}

const PathCell& TopologyPaths::smi_at(const std::string& a, const std::string& b) const {
  return cell_at(smi, a, b);
}

const PathCell& TopologyPaths::nccl_at(const std::string& a, const std::string& b) const {
  return cell_at(nccl, a, b);
}

TopologyPaths compute_paths(const Topology& t, const NcclViewOptions& options) {
  TopologyPaths p;
  auto order = matrix_order(t);
  std::vector<std::string> ids;
  for (const Endpoint* e : order) ids.push_back(e->id);
  p.set_ids(std::move(ids));
  if (t.kind == SourceKind::SmiText)
    fill_from_printed(t, order, p);
  else
    fill_from_tree(t, order, options, p);
  fill_closest(t, p);
  return p;
}

}  // namespace gdrcheck
