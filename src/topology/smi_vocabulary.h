// The words a pasted `nvidia-smi topo -m` matrix is made of: path codes
// (X, NV#, PIX, PXB, PHB, NODE, SYS, SOC, N/A), device labels (GPU0, NIC3,
// mlx5_0) and CPU lists, and how to take them apart when a paste ran them
// together ("NODENODE", "NIC8NIC9", "GPU0XNODENODE0-310N/A").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gdrcheck::smi {

// Longest word worth trying to split; keeps the splitting linear on
// hostile input.
constexpr std::size_t kMaxGluedWord = 64;

bool is_code(std::string_view w);
// `nvidia-smi topo -p2p` statuses (OK, CNS, GNS, ...).
bool is_p2p_status(std::string_view w);
// Length of the code starting at w[i] (longest NV# run), 0 if none.
std::size_t code_at(std::string_view w, std::size_t i);
// "NODENODE" → {NODE, NODE}; {} when the word is not two or more codes.
std::vector<std::string> split_glued_codes(std::string_view w);

// Codes at the start of a word whose rest is not a code: "XNODENODE0-31"
// with `wanted` 3 → {X, NODE, NODE} and rest "0-31". Only exactly `wanted`
// codes count, and a last NV# code is refused (its digits and the next
// cell's cannot be told apart).
struct LeadingCodes {
  std::vector<std::string> codes;
  std::string rest;
};
LeadingCodes split_leading_codes(std::string_view w, std::size_t wanted);

// GPU0, NIC12, NVME0: capitals then digits (but not an NV# code).
bool is_upper_label(std::string_view w);
// Old drivers' device-name columns: mlx5_0, mlx4_0, mlx5_bond_0, irdma1.
bool is_lower_label(std::string_view w);
bool is_device_label(std::string_view w);
// "NIC8NIC9" → {NIC8, NIC9}; {} when the word is not labels run together.
std::vector<std::string> split_glued_labels(std::string_view w);

// Labels run into the first header word after them: "GPU0GPU1GPU2CPU" →
// labels {GPU0, GPU1, GPU2}, rest "CPU". The rest must be letters only.
struct LeadingLabels {
  std::vector<std::string> labels;
  std::string rest;
};
LeadingLabels split_leading_labels(std::string_view w);

// "AffinityNUMA" → {Affinity, NUMA}: header words whose space was lost.
std::vector<std::string> split_camel_words(std::string_view w);

// A Linux cpulist as nvidia-smi prints it ("0-31,64-95", "7"): ranges
// ascending within themselves. A reversed range ("60-59") is no output
// nvidia-smi makes: the text was altered.
bool is_cpu_list(std::string_view s);
// A cell a digest or page shortened ("56-111,1..." or with "…").
bool is_cut_cell(std::string_view s);

}  // namespace gdrcheck::smi
