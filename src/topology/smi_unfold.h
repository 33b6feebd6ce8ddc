// Puts back the line breaks a paste lost around an `nvidia-smi topo -m`
// matrix: a digest or chat tool that collapsed the whole matrix into one
// line, or a prompt or sentence the header was glued to.
#pragma once

#include <string>
#include <vector>

namespace gdrcheck::smi {

// Each line that holds a header (GPU0 and at least one more device label)
// after other words, or a header followed by its rows, is cut before the
// header and before every row label (a header device label followed by a
// code). Other lines are returned unchanged. `unfolded` counts the lines
// that were cut.
std::vector<std::string> unfold_lines(std::vector<std::string> lines, std::size_t* unfolded);

}  // namespace gdrcheck::smi
