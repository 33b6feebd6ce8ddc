// Where the bundled example root is: installed next to the binary
// (<prefix>/bin/gdrcheck -> <prefix>/share/gdrcheck/example-root/dgx-h100),
// else where the build made it. An installed or packaged gdrcheck never
// depends on the build tree still being there.
#pragma once

#include <string>
#include <vector>

namespace gdrcheck {

// The places to look, in order: relative to the executable's real path,
// then the build's path.
std::vector<std::string> example_root_candidates(const std::string& executable, const std::string& build_path);

// The first candidate that is a directory with sys/ in it; the build path
// when none is (the caller then says it is missing).
std::string find_example_root(const std::string& build_path);

}  // namespace gdrcheck
