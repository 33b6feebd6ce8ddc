// Whether each GPU of a topology has an NVLink to another GPU, from the
// strongest evidence at hand. NCCL needs the answer twice: before 2.19 (and
// below sm 80 in every version) the NIC reads GPU memory only when the GPU
// has an NVLink peer, and PXN sends through a peer GPU's NIC over NVLink.
// sysfs does not show NVLink, so where nothing shows it the answer is
// Unknown, never No. Pure: no I/O.
//
// Evidence, strongest first; the first that answers decides, and a weaker
// one that disagrees becomes a note:
//  1. the topology's own NVLinks (NCCL topology XML <nvlink>): to another
//     GPU directly, or to NVSwitches;
//  2. `nvidia-smi topo -m` (NV# between GPUs) and `nvidia-smi nvlink
//     --status` (any link active, or all links inactive). nvidia-smi numbers
//     GPUs in PCI bus order (NVML's enumeration), so smi GPU k is the
//     topology's k-th GPU by bus id; a smi text topology's GPUk is GPU k;
//  3. NVSwitch PCI functions next to SXM GPUs;
//  4. the device ID: two or more SXM modules are linked (inferred: an HGX
//     baseboard always links its GPUs); a model without NVLink is not;
//     a bridge-capable PCIe card, or a model not in the table, is unknown.
// A host with a single GPU has no peer, whatever its links.
#pragma once

#include <string>
#include <vector>

#include "evidence/nvidia_smi_nvlink.h"
#include "topology/topology.h"

namespace gdrcheck {

enum class NvLinkAnswer { No, Yes, Unknown };
const char* nvlink_answer_name(NvLinkAnswer a);  // "no", "yes", "unknown"

enum class NvLinkSource { Topology, SmiMatrix, SmiLinkStatus, NvSwitch, DeviceId, SingleGpu, None };
// "topology", "nvidia-smi topo -m", "nvidia-smi nvlink --status", "nvswitch",
// "device id", "single gpu", "none"
const char* nvlink_source_name(NvLinkSource s);

struct GpuNvLink {
  std::string gpu;  // endpoint id, "GPU3"
  NvLinkAnswer answer = NvLinkAnswer::Unknown;
  NvLinkSource source = NvLinkSource::None;
  std::vector<std::string> peers;  // GPU endpoint ids over NVLink, when the evidence names them
  bool via_nvswitch = false;
  bool inferred = false;  // from the form factor, not observed
  // One sentence: the evidence, or for Unknown what would tell.
  std::string evidence;
  // Weaker evidence that disagrees, and what it may mean ("an SXM module
  // with every link inactive: ...").
  std::vector<std::string> notes;
};

// Optional nvidia-smi evidence, already parsed; null when not captured.
struct NvLinkInputs {
  const Topology* smi_matrix = nullptr;         // read_smi_text of `nvidia-smi topo -m`
  const NvLinkStatus* nvlink_status = nullptr;  // parse_nvidia_smi_nvlink of `nvidia-smi nvlink --status` (or -R)
};

struct NvLinkFacts {
  std::vector<GpuNvLink> gpus;     // in the topology's endpoint order
  std::vector<std::string> notes;  // why nvidia-smi evidence could not be used
  const GpuNvLink* find(const std::string& gpu) const;
};

NvLinkFacts nvlink_facts(const Topology& t, const NvLinkInputs& in = {});

// The topology's GPUs in nvidia-smi's numbering (see above); empty when
// that order cannot be known (a GPU without a bus id).
std::vector<const Endpoint*> gpus_in_smi_order(const Topology& t);

}  // namespace gdrcheck
