// Reads pasted `nvidia-smi topo -m` / `topo -mp` text into a Topology with
// no tree: endpoints (GPUs, NICs) and the matrix exactly as printed.
#pragma once

#include <string>
#include <string_view>

#include "topology/topology.h"

namespace gdrcheck {

// True when the text looks like an nvidia-smi topology matrix (a header row
// with GPU0 and at least one row of known codes). Used for auto-detection.
bool looks_like_smi_text(std::string_view text);

// Throws InputError(source_name, problem) when the text is not a matrix.
// Accepts what users paste: tabs or runs of spaces, prompts and logs around
// the matrix, ANSI escapes (or their "[4m" debris), CRLF, cells that ran
// together (even every cell of a row: "GPU0XNODENODE0-310N/A"), a matrix
// whose line breaks were lost (one line, or the header glued to a prompt),
// a `topo -p2p` matrix next to it (skipped), old drivers' device name
// columns (mlx5_0 -> id NIC0, name mlx5_0). Affinity is only taken from
// cells that can be trusted: none when a CPU list is impossible (a page
// altered the numbers), not a cell cut short ("56-111,1..."). Endpoint ids
// key printed_matrix; anything guessed, dropped or missing is said in
// Topology::notes.
Topology read_smi_text(std::string_view text, const std::string& source_name);

}  // namespace gdrcheck
