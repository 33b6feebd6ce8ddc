#include "analyze/crosscheck.h"

#include <algorithm>
#include <map>
#include <set>

#include "evidence/nccl_log_messages.h"
#include "host/text_format.h"

namespace gdrcheck {
namespace {

// A rank as the log shows it: its place (Init or nccl-tests lines) and,
// from its own channel lines, the bracket that names its GPU. A GPU named
// only by a "GPU Direct RDMA" line has no rank (-1).
struct LoggedRank {
  std::string host;
  int rank = -1;
  const NcclRankPlace* place = nullptr;
  std::string bracket;
  std::optional<PciAddress> statement_bus;  // from a GDR statement, or the bracket when it is a bus id
  int statement_cuda = -1;
};

// A channel line's bracket is the bus id up to 2.17, the NVML index from
// 2.18.3 (src/transport/net.cc@each tag); without a version line, an index
// has at most 3 digits and a bus id at least 4.
bool bracket_is_bus(const std::string& bracket, const std::optional<NcclVersion>& v) {
  return v ? *v < NcclVersion{2, 18, 3} : bracket.size() >= 4;
}

bool same_gpu(const NcclGdrStatement& s, const std::optional<PciAddress>& bus, int cuda_dev) {
  return (s.bus && bus && *s.bus == *bus) || (s.cuda_dev && cuda_dev >= 0 && *s.cuda_dev == cuda_dev);
}

std::vector<LoggedRank> ranks_of(const NcclLogReport& log, const std::optional<NcclVersion>& v) {
  std::map<std::pair<std::string, int>, LoggedRank> by_key;
  for (const auto& p : log.rank_map.ranks) by_key[{p.host, p.rank}] = {p.host, p.rank, &p, "", {}, -1};
  for (const auto& c : log.connections) {
    bool send = c.side == NetSide::Send;
    int rank = send ? c.from_rank : c.to_rank;
    auto& r = by_key[{c.host, rank}];
    r.host = c.host;
    r.rank = rank;
    if (r.bracket.empty()) r.bracket = send ? c.from_device : c.to_device;
  }
  std::vector<LoggedRank> out;
  for (auto& [key, r] : by_key) {
    if (!r.place && !r.bracket.empty() && bracket_is_bus(r.bracket, v)) r.statement_bus = nccl_bus_id(r.bracket);
    out.push_back(r);
  }
  // GPUs the log names only in GDR statements (logs cut before Init lines).
  for (const auto& st : log.rank_map.gdr_statements) {
    bool known = std::any_of(out.begin(), out.end(), [&](const LoggedRank& r) {
      return r.host == st.host && ((r.place && same_gpu(st, r.place->bus, r.place->cuda_dev)) ||
                                   (r.statement_bus && st.bus && *r.statement_bus == *st.bus) ||
                                   (st.cuda_dev && r.statement_cuda == *st.cuda_dev));
    });
    if (!known) out.push_back({st.host, -1, nullptr, "", st.bus, st.cuda_dev.value_or(-1)});
  }
  return out;
}

std::optional<NcclVersion> log_version(const NcclLogReport& log) {
  return log.nccl_version.empty() ? std::nullopt : version_core(log.nccl_version);
}

const Endpoint* gpu_at(const Topology& t, const PciAddress& a) {
  for (const Endpoint* g : t.with_role(DeviceRole::Gpu))
    if (g->address == a) return g;
  return nullptr;
}

bool has_addresses(const Topology& t) {
  auto gpus = t.with_role(DeviceRole::Gpu);
  return !gpus.empty() && std::all_of(gpus.begin(), gpus.end(), [](const Endpoint* g) { return g->address; });
}

const Endpoint* gpu_by_index(const Topology& t, int index) {
  return index >= 0 ? t.find("GPU" + std::to_string(index)) : nullptr;
}

// The topology's GPU for a rank: by bus id where the log prints one (Init
// lines; channel-line brackets up to 2.17; GDR statements), else by NVML
// index (nvidia-smi's numbering), else the topology's only GPU, else by
// CUDA index, which CUDA_VISIBLE_DEVICES renumbers: that mapping is weak.
// NVML numbers the GPUs a process can see: in a container given some of
// the machine's GPUs it starts at 0 again, so one NVML index names
// different bus ids on different hosts, and is no row of the topology.
bool nvml_numbering_differs(const NcclLogReport& log) {
  std::map<int, PciAddress> seen;
  for (const auto& p : log.rank_map.ranks)
    if (p.nvml_dev && p.bus)
      if (auto [it, added] = seen.emplace(*p.nvml_dev, *p.bus); !added && it->second != *p.bus) return true;
  return false;
}

void map_gpu(const Topology& t, const LoggedRank& lr, const std::optional<NcclVersion>& v, bool nvml_differs,
             CrosscheckRow& row, bool& weak) {
  std::optional<PciAddress> bus = lr.place ? lr.place->bus : lr.statement_bus;
  int nvml = lr.place && lr.place->nvml_dev ? *lr.place->nvml_dev : -1;
  std::string bus_text = bus ? bus->str() : "";
  if (!lr.place && !lr.bracket.empty() && bracket_is_bus(lr.bracket, v)) bus_text = lr.bracket + " (channel line)";
  if (!bus && nvml < 0 && !lr.bracket.empty() && !bracket_is_bus(lr.bracket, v) &&
      lr.bracket.find_first_not_of("0123456789") == std::string::npos)
    nvml = std::stoi(lr.bracket);
  if (bus && has_addresses(t)) {
    row.mapped_by = "busId " + bus_text;
    if (const Endpoint* g = gpu_at(t, *bus))
      row.gpu = g->id;
    else
      row.cause = "the log's GPU " + bus->str() + " is not a GPU of the topology: another machine, or its rows are cut";
    return;
  }
  auto gpus = t.with_role(DeviceRole::Gpu);
  if (nvml >= 0) {
    row.mapped_by =
        "nvmlDev " + std::to_string(nvml) +
        (nvml_differs ? " (index only: the log's NVML numbering differs between hosts, as in containers)" : " (index)");
    if (const Endpoint* g = gpu_by_index(t, nvml)) row.gpu = g->id;
    weak = nvml_differs;
  } else if (gpus.size() == 1) {
    row.mapped_by = "the topology's only GPU";
    row.gpu = gpus.front()->id;
  } else if (row.cuda_dev >= 0) {
    row.mapped_by = "cudaDev " + std::to_string(row.cuda_dev) + " (index only";
    row.mapped_by += bus ? ": the log names it " + bus->str() + ", the topology has no bus ids)" : ")";
    if (const Endpoint* g = gpu_by_index(t, row.cuda_dev)) row.gpu = g->id;
    weak = true;
  }
  if (row.gpu.empty() && row.cause.empty())
    row.cause = row.mapped_by.empty() ? "the log does not say which GPU this rank used"
                                      : "the topology has no GPU for " + row.mapped_by + " (its rows are cut?)";
}

std::string nic_name(const Topology& t, const std::string& id) {
  const Endpoint* e = t.find(id);
  return e ? e->name : id;
}

void fill_predicted(const NodeReport& r, CrosscheckRow& row) {
  for (const auto& v : r.pairs)
    if (v.gpu == row.gpu) {
      row.predicted.gdr_send = gdr_use_name(v.gdr_send);
      row.predicted.gdr_recv = gdr_use_name(v.gdr_recv);
    }
  for (const auto& p : r.predictions)
    if (p.gpu == row.gpu) {
      std::vector<std::string> names;
      for (const auto& n : p.nics) names.push_back(nic_name(r.topology, n));
      // PXN: sends leave through the peer's NIC.
      if (!p.send_nic.empty() && std::find(p.nics.begin(), p.nics.end(), p.send_nic) == p.nics.end())
        names.push_back(nic_name(r.topology, p.send_nic));
      row.predicted.nic = join(names, ", ");
    }
}

std::string gdr_of(const std::vector<bool>& flags) {
  if (flags.empty()) return "not seen";
  auto yes = std::count(flags.begin(), flags.end(), true);
  return yes == static_cast<long>(flags.size()) ? "yes" : yes == 0 ? "no" : "mixed";
}

// A process prints its device list as "NET/IB : Using ..." also when a
// plugin ("IBext_v8", "NCCL RDMA Plugin v6") names its channel lines: the
// host's list names the devices whatever the net's name.
std::string net_name(const NcclLogReport& log, const std::string& host, const std::string& net, int dev) {
  const NcclNetDeviceList* list = log.rank_map.devices_of(host);
  if (list && dev >= 0 && dev < static_cast<int>(list->names.size())) return list->names[dev];
  return "NET/" + (net.empty() ? std::string("?") : net) + "/" + std::to_string(dev);
}

// What the channel lines of the rank show: NIC names through the host's NET
// device list, GDR per direction.
// Each rank's own connections (its sends, and the receives into it), found
// once: a log may hold 65,536 connections of as many ranks.
using ConnectionsByRank = std::map<std::pair<std::string, int>, std::vector<const NcclConnection*>>;

ConnectionsByRank connections_by_rank(const NcclLogReport& log) {
  ConnectionsByRank out;
  for (const auto& c : log.connections) out[{c.host, c.side == NetSide::Send ? c.from_rank : c.to_rank}].push_back(&c);
  return out;
}

void observe_channels(const NcclLogReport& log, const ConnectionsByRank& by_rank, const LoggedRank& lr,
                      CrosscheckRow& row, bool& unnamed) {
  std::vector<bool> send, recv;
  std::vector<std::string> nics;
  row.observed = {"", "not seen", "not seen"};
  auto it = by_rank.find({lr.host, lr.rank});
  if (it == by_rank.end()) return;
  for (const NcclConnection* cp : it->second) {
    const NcclConnection& c = *cp;
    (c.side == NetSide::Send ? send : recv).push_back(c.gdr);
    std::string name = net_name(log, lr.host, c.net, c.dev);
    unnamed |= name.starts_with("NET/");
    if (std::find(nics.begin(), nics.end(), name) == nics.end()) nics.push_back(name);
  }
  row.observed = {join(nics, ", "), gdr_of(send), gdr_of(recv)};
  if (!send.empty() || !recv.empty()) row.observed_by = "channel lines";
}

// Without channel lines, NCCL's own "GPU Direct RDMA Enabled/Disabled for
// GPU ... / HCA n" line is the decision it took for the GPU.
const NcclGdrStatement* statement_for(const NcclLogReport& log, const LoggedRank& lr) {
  std::optional<PciAddress> bus = lr.place ? lr.place->bus : lr.statement_bus;
  int cuda = lr.place ? lr.place->cuda_dev : lr.statement_cuda;
  for (const auto& st : log.rank_map.gdr_statements)
    if ((st.host == lr.host || st.host.empty() || lr.host.empty()) && same_gpu(st, bus, cuda)) return &st;
  return nullptr;
}

void observe_statement(const NcclLogReport& log, const NcclGdrStatement& st, const std::string& host,
                       CrosscheckRow& row, bool& unnamed) {
  std::string nic = net_name(log, host, "", st.hca);
  unnamed = nic.starts_with("NET/");
  std::string send = st.enabled ? (st.read.value_or(1) ? "yes" : "no") : "no";
  row.observed = {nic, send, st.enabled ? "yes" : "no"};
  row.observed_by = "GPU Direct RDMA line " + std::to_string(st.line);
}

std::set<std::string> name_parts(const std::string& list) {
  std::set<std::string> out;
  std::string part;
  for (char c : list + ",") {
    if (c == ',' || c == '+' || c == ' ') {
      if (!part.empty()) out.insert(part);
      part.clear();
    } else {
      part += c;
    }
  }
  return out;
}

bool nics_agree(const CrosscheckRow& row) {
  auto predicted = name_parts(row.predicted.nic);
  for (const auto& n : name_parts(row.observed.nic))
    if (predicted.count(n)) return true;
  return false;
}

std::string env_cite(const NcclLogReport& log, const char* name) {
  const NcclEnvEcho* e = log.env_value(name);
  return e ? std::string(name) + "=" + printable(e->value) + " in the log's environment (line " +
                 std::to_string(e->line) + ")"
           : "";
}

// A predicted NIC the host's NET list does not hold.
std::string missing_from_list(const NcclLogReport& log, const CrosscheckRow& row) {
  const NcclNetDeviceList* list = log.rank_map.devices_of(row.host);
  if (!list) return "";
  auto listed = name_parts(join(list->names, ","));
  for (const auto& n : name_parts(row.predicted.nic))
    if (!listed.count(n))
      return n + " is not in the log's NET/" + list->net + " list (line " + std::to_string(list->line) +
             "): NCCL_IB_HCA, or that NIC down or missing on the host";
  return "";
}

// The numbering of a GDR line's distances: the log's release, else 2.22's.
// Releases to 2.29 print the line at INFO (2.30 at TRACE), in decimal up to
// 2.22 and hex from 2.23, which read alike below 10 NICs; 2.22's numbering
// is that of every release since 2.12 that has no C2C/P2C.
NcclVersion distance_numbering(const NcclLogReport& log) {
  return log_version(log).value_or(NcclVersion{2, 22, 3});
}

std::string level_text(const NcclLogReport& log, int level) {
  return nccl_distance_name(distance_numbering(log), level) + " (" + std::to_string(level) +
         (log_version(log) ? "" : " in 2.12-2.26 numbering") + ")";
}

// The most likely cause of a difference, from what the log itself says.
std::string cause_of(const NcclLogReport& log, const CrosscheckRow& row, const NcclGdrStatement* st, bool gdr_differs,
                     bool nic_differs) {
  bool predicted_yes = row.predicted.gdr_recv == "yes";
  if (gdr_differs && predicted_yes) {
    for (const char* setting : {"NCCL_NET_GDR_LEVEL", "NCCL_NET_GDR_READ", "NCCL_TOPO_FILE"})
      if (std::string c = env_cite(log, setting); !c.empty()) return c;
    if (st && !st->enabled)
      return "NCCL put the NIC at distance " + std::to_string(st->distance) + " beyond its GDR level " +
             level_text(log, st->level) + " (line " + std::to_string(st->line) +
             "): the path on that host is longer than the topology's, or the level was lowered";
    for (const char* code : {"gdr_disabled_no_module", "gdr_disabled_env", "gdr_disabled_plugin"})
      if (const NcclReason* r = log.reason(code))
        return r->message + " (line " + std::to_string(r->lines.front()) + ")";
    return "NCCL did not select GDR where the topology allows it: peer memory (nvidia_peermem, DMA-BUF) missing on "
           "that host, or the topology is not of the machine the log ran on";
  }
  if (gdr_differs) {
    for (const char* setting : {"NCCL_NET_GDR_LEVEL", "NCCL_TOPO_FILE", "NCCL_NET_GDR_READ"})
      if (std::string c = env_cite(log, setting); !c.empty()) return c;
    if (st && st->enabled)
      return "NCCL's GDR level on that host was " + level_text(log, st->level) + " (line " + std::to_string(st->line) +
             ": distance " + std::to_string(st->distance) + " <= " + std::to_string(st->level) +
             "): NCCL_NET_GDR_LEVEL raised and not echoed in the log";
    return "NCCL used GDR on a path the topology puts beyond the GDR level: a raised NCCL_NET_GDR_LEVEL not echoed, a "
           "virtual topology on that host, or the topology is not of the machine the log ran on";
  }
  if (nic_differs) {
    if (std::string c = env_cite(log, "NCCL_IB_HCA"); !c.empty()) return c;
    if (std::string c = missing_from_list(log, row); !c.empty()) return c;
    return "NCCL used another NIC than the topology's nearest: a NIC down on that host, or the topology is not of "
           "the machine the log ran on";
  }
  return "";
}

// NCCL's path names in the order of its enum (src/graph/topo.h@v2.30.7-1).
int path_rank(const std::string& name) {
  static const char* kOrder[] = {"LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS", "NET"};
  for (int i = 0; i < 11; ++i)
    if (name == kOrder[i]) return i;
  return -1;
}

// A GDR line names the NIC by index and its distance: where the NIC is not
// named, the distance says which of the topology's NICs it can be, and
// whether the topology gives GDR at that distance (the predicted level).
std::vector<std::string> nics_at(const NodeReport& r, const std::string& gpu, const std::string& path) {
  std::vector<std::string> at;
  for (const Endpoint* n : r.topology.with_role(DeviceRole::Nic))
    if (r.paths.nccl_at(gpu, n->id).code == path) at.push_back(n->name);
  return at;
}

void judge_statement(const NodeReport& r, const NcclLogReport& log, const NcclGdrStatement& st, CrosscheckRow& row) {
  std::string path = nccl_distance_name(distance_numbering(log), st.distance);
  std::vector<std::string> at = nics_at(r, row.gpu, path);
  std::string level;
  for (const auto& p : r.predictions)
    if (p.gpu == row.gpu) level = p.level;
  std::string hca = "HCA " + std::to_string(st.hca) + " at " + path + " (line " + std::to_string(st.line) + ")";
  if (at.empty()) {
    row.agree = "no";
    row.cause = hca + ": the topology has no NIC at " + path + " from " + row.gpu +
                ": the topology is not of the machine the log ran on";
    return;
  }
  int pr = path_rank(path), lr = path_rank(level);
  if (pr < 0 || lr < 0) {
    row.agree = "inconclusive";
    row.cause = hca + " is one of " + join(at, ", ") + "; the GDR level is not known";
    return;
  }
  bool topology_gives = pr <= lr;
  row.agree = topology_gives == st.enabled ? "yes" : "no";
  row.cause = hca + " is one of " + join(at, ", ") + ", where the topology gives " +
              (topology_gives ? "GDR" : "no GDR") + " at level " + level +
              (row.agree == "yes" ? "" : " but NCCL decided otherwise: the GDR level on that host differs");
  if (!nics_agree(row) && row.agree == "yes")
    row.cause += "; NCCL used it, not the topology's nearest " + row.predicted.nic + " (NCCL_IB_HCA or NIC order)";
}

// A matrix pasted without its NIC Legend names NICs by label ("NIC6"):
// nothing to compare a device name with.
bool labels_only(const std::string& nics) {
  auto parts = name_parts(nics);
  return !parts.empty() && std::all_of(parts.begin(), parts.end(), [](const std::string& n) {
    return n.size() > 3 && n.starts_with("NIC") && n.find_first_not_of("0123456789", 3) == std::string::npos;
  });
}

bool decided(const std::string& g) {
  return g == "yes" || g == "no";
}

void judge_row(const NcclLogReport& log, CrosscheckRow& row, const NcclGdrStatement* st, bool unnamed, bool weak) {
  if (row.gpu.empty()) {
    row.agree = "inconclusive";
    return;
  }
  if (row.observed_by.empty()) {
    row.agree = "inconclusive";
    row.cause = "no NET channel line or GDR decision of this GPU in the log";
    return;
  }
  bool gdr_differs = false, compared = false;
  for (auto [p, o] : {std::pair{row.predicted.gdr_send, row.observed.gdr_send},
                      std::pair{row.predicted.gdr_recv, row.observed.gdr_recv}})
    if (decided(p) && decided(o)) {
      compared = true;
      gdr_differs |= p != o;
    }
  bool nic_compared =
      !unnamed && !labels_only(row.predicted.nic) && !row.predicted.nic.empty() && !row.observed.nic.empty();
  bool nic_differs = nic_compared && !nics_agree(row);
  if (!compared && !nic_compared) {
    row.agree = "inconclusive";
    row.cause = "the prediction or the log leaves GDR undecided for this GPU";
    return;
  }
  row.agree = gdr_differs || nic_differs ? "no" : "yes";
  row.cause = cause_of(log, row, st, gdr_differs, nic_differs);
  if (row.agree == "yes" && unnamed)
    row.cause = "GDR agrees; the NIC is not named (no NET/IB : Using list for its host)";
  else if (row.agree == "yes" && labels_only(row.predicted.nic))
    row.cause = "GDR agrees; the topology names its NICs by label only (no NIC Legend): NICs not compared";
  // A GPU placed by an index alone may be the wrong row of the topology.
  if (row.agree == "no" && weak) {
    row.agree = "inconclusive";
    row.cause =
        "differs, but the GPU is placed by index only, which may be the wrong row; if it is right: " + row.cause;
    if (std::string m = missing_from_list(log, row); !m.empty() && row.cause.find(m) == std::string::npos)
      row.cause += "; " + m;
  }
}

}  // namespace

Status crosscheck_status(const std::vector<Crosscheck>& checks) {
  for (const auto& c : checks)
    for (const auto& r : c.rows)
      if (r.agree == "no") return Status::Warning;
  return Status::Ok;
}

Crosscheck crosscheck(const NodeReport& predicted, const NcclLogReport& log, const std::string& topology_file,
                      const std::string& log_file, const std::string& predicted_with) {
  Crosscheck out{topology_file, log_file, predicted_with, {}, {}};
  if (log.connections.empty())
    out.notes.push_back(
        "the log has no NET channel lines: GPUDirect RDMA use is not observable (a run past "
        "communicator setup with NCCL_DEBUG=INFO prints them)");
  std::optional<NcclVersion> v = log_version(log);
  bool nvml_differs = nvml_numbering_differs(log);
  ConnectionsByRank by_rank = connections_by_rank(log);
  for (const LoggedRank& lr : ranks_of(log, v)) {
    CrosscheckRow row;
    row.host = lr.host;
    row.rank = lr.rank;
    row.cuda_dev = lr.place ? lr.place->cuda_dev : lr.statement_cuda;
    bool weak = false, unnamed = false;
    map_gpu(predicted.topology, lr, v, nvml_differs, row, weak);
    if (!row.gpu.empty()) fill_predicted(predicted, row);
    observe_channels(log, by_rank, lr, row, unnamed);
    const NcclGdrStatement* st = statement_for(log, lr);
    bool from_statement = row.observed_by.empty() && st;
    if (from_statement) observe_statement(log, *st, lr.host, row, unnamed);
    if (from_statement && unnamed && !row.gpu.empty())
      judge_statement(predicted, log, *st, row);
    else
      judge_row(log, row, st, unnamed, weak);
    // An unnamed NET device: the GDR line's distance narrows it down.
    if (!from_statement && unnamed && st && !row.gpu.empty()) {
      std::string path = nccl_distance_name(distance_numbering(log), st->distance);
      if (auto at = nics_at(predicted, row.gpu, path); !at.empty())
        row.cause += (row.cause.empty() ? "" : "; ") + std::string("HCA ") + std::to_string(st->hca) + " at " + path +
                     " is one of " + join(at, ", ");
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

}  // namespace gdrcheck
