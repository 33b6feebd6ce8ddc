// Parser for the text of `nvidia-smi nvlink --status` (`-s`), and of
// `nvidia-smi nvlink -R` (`--remotelinkinfo`), which uses the same layout:
//
//   GPU 0: NVIDIA H100 PCIe (UUID: GPU-6968dfc2-...)
//            Link 0: 26.562 GB/s                        (--status)
//            Link 4: <inactive>
//            Link 0: Remote Device 00000000:D5:00.0: Link 0   (-R)
//   GPU 2: NVIDIA RTX A6000 (UUID: GPU-02c05ee3-...)
//   NVML: Unable to retrieve NVLink information as all links are inActive
//
// GPUs without NVLink hardware are not listed at all, so an empty output
// is normal on such hosts. The result is a value, never an exception.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gdrcheck {

enum class NvLinkLinkState { Active, Inactive, Unknown };

struct NvLinkLink {
  int number = 0;
  NvLinkLinkState state = NvLinkLinkState::Unknown;
  std::optional<double> gbytes_per_s;  // "26.562 GB/s"
  std::string remote_bus_id;           // -R: "00000000:D5:00.0" as printed
  int remote_link = -1;                // -R: the other end's link number
  std::string value;                   // what followed "Link n:", cleaned and bounded
};

// What one GPU block says about the GPU's NVLinks.
//  Active:      at least one link is up.
//  AllInactive: every link is down (NVML's "all links are inActive", or
//               every listed link <inactive> with none elided).
//  Unknown:     no link lines (a paste cut short, another nvlink sub-
//               command's output), only elided or unreadable links, or an
//               NVML error other than "all links inactive".
enum class NvLinkGpuState { Active, AllInactive, Unknown };
const char* nvlink_gpu_state_name(NvLinkGpuState s);  // "active", "all inactive", "unknown"

struct NvLinkGpu {
  int index = -1;                 // "GPU 3": NVML's index, which follows PCI bus order
  std::string name;               // "NVIDIA H100 PCIe"
  std::string uuid;               // "GPU-..."; empty when not printed (old drivers)
  std::vector<NvLinkLink> links;  // in printed order, one per link number
  std::string message;            // an NVML line inside the block
  bool elided = false;            // a "...", "[...]" or "[snip]" line inside the block

  int active_links() const;
  int inactive_links() const;
  NvLinkGpuState state() const;
  // "12 of 18 links active (26.562 GB/s)", "all links inactive (NVML: ...)".
  std::string describe() const;
};

struct NvLinkStatus {
  // Found:    at least one GPU block.
  // Empty:    nothing but blank lines (no GPU with NVLink hardware, or an
  //           empty capture: the reader of the capture knows which).
  // Failed:   nvidia-smi or NVML said why it could not answer.
  // NotNvLink: text without any "GPU n: name" line.
  // Binary:   NUL bytes or many control bytes.
  enum class Kind { Found, Empty, Failed, NotNvLink, Binary };
  Kind kind = Kind::Empty;
  std::vector<NvLinkGpu> gpus;     // in printed order, one per GPU index
  std::string problem;             // why there are no GPUs (kind != Found)
  std::vector<std::string> notes;  // duplicates, cut lines, limits reached

  const NvLinkGpu* find(int index) const;
};

// True when the text has a "GPU n: name" block with link states (--status
// or -R lines, or NVML's "all links are inActive"). Used to recognise a
// file by its content.
bool looks_like_nvidia_smi_nvlink(std::string_view text);

// Accepts what users paste and what tools capture: tabs or runs of spaces,
// Markdown indentation, prompts and other commands' output around the
// blocks, per-line host prefixes (pdsh "gpu01: "), ANSI escapes, CRLF,
// "...", "[...]" and "[snip]" elisions. Bounded: at most 1024 GPUs, 64
// links per GPU, 4096 bytes looked at per line; linear in the input.
NvLinkStatus parse_nvidia_smi_nvlink(std::string_view text);

}  // namespace gdrcheck
