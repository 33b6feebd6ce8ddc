// `node --topo FILE`: a topology file (hwloc XML, NCCL topology XML, a
// pasted `nvidia-smi topo -m`) holds the PCI tree and nothing of the live
// host: peer memory, RDMA port states, ACS bits, the IOMMU mode, link
// training, the driver. The node checks that judge those do not run; one
// `host` finding says which facts are missing (UNKNOWN, so the exit code
// stays honest) or which the planner stated with
// `--assume peermem=ok,ports=active,...` (OK). The NCCL prediction shows
// what the topology decides given peer memory, unless the planner states
// that it is missing.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checks/finding.h"
#include "nccl/peer_memory.h"

namespace gdrcheck {

// The host facts a planner can state, each with the words it accepts.
struct AssumableFact {
  const char* key;                  // "peermem"
  std::vector<const char*> values;  // {"ok", "missing"}: the first is the good one
  const char* what;                 // "peer memory (nvidia_peermem or DMA-BUF)"
  std::vector<const char*> checks;  // the node checks it stands in for
};
const std::vector<AssumableFact>& assumable_facts();

struct HostAssumptions {
  std::map<std::string, std::string> stated;  // key → value, as given

  const std::string* find(const std::string& key) const;
  // "peermem=ok,ports=active", in assumable_facts() order; "" when none.
  std::string text() const;
};

// Parses one or more `--assume` values ("peermem=ok,ports=active", "all=ok").
// Throws std::invalid_argument naming the key or value that is wrong.
HostAssumptions parse_host_assumptions(const std::vector<std::string>& values);

// Peer memory for the prediction: missing when stated so, else assumed
// present (what the topology decides is what a planner asks for).
void apply_peer_memory_assumption(const HostAssumptions& a, GdrHostFacts& facts);

// The one `host` finding of a topology file: OK when every fact is stated
// good, else UNKNOWN naming what is not stated (or CRITICAL naming a fact
// stated bad: peermem=missing).
Finding topology_file_host_finding(const HostAssumptions& a, const std::string& file);

}  // namespace gdrcheck
