// A snapshot tarball given as --root: unpacked into a private directory
// (mkdtemp, 0700) that lives as long as the ExtractedRoot, then audited
// like any recorded root before hwloc reads it.
#pragma once

#include <optional>
#include <string>

#include "snapshot/tarball_extract.h"

namespace gdrcheck {

class ExtractedRoot {
 public:
  // Unpacks `tarball` below a new directory in `base` ($TMPDIR, else /tmp,
  // when empty). Throws InputError(tarball, problem) for a tarball that
  // cannot be used; nothing is left behind then.
  explicit ExtractedRoot(const std::string& tarball, const ExtractLimits& limits = {}, const std::string& base = "");
  ExtractedRoot(const ExtractedRoot&) = delete;
  ExtractedRoot& operator=(const ExtractedRoot&) = delete;
  ~ExtractedRoot();

  // The directory standing for "/": the private directory, or its one
  // sub-directory when the tarball was made of a folder holding a root.
  const std::string& dir() const { return root_; }
  // The private directory itself (removed by the destructor).
  const std::string& temp_dir() const { return temp_; }
  const ExtractResult& result() const { return result_; }

 private:
  std::string temp_, root_;
  ExtractResult result_;
};

// What a command's --root names: a directory is used as it is; a regular
// file is taken for a snapshot tarball, unpacked into `holder`, and the
// unpacked root is returned. Anything else is returned unchanged for the
// command to report. Throws InputError(arg, ...) for a tarball that
// cannot be used and for a path that is neither (a FIFO, a device).
std::string resolve_root_argument(const std::string& arg, std::optional<ExtractedRoot>& holder);

}  // namespace gdrcheck
