// The NCCL versions installed in a root. The NCCL release that runs a job
// decides several GDR rules (path-type numbering, the GDR read default, which
// peer-memory files it tests, DMA-BUF from 2.13), so a check needs to know
// which releases a node has, and where each one lies.
//
// Searched, all through the Root and all bounded:
//  - libraries: `libnccl.so.2.X.Y` in the usual library folders (distribution,
//    /usr/local, CUDA toolkits, /opt/nccl*, conda, HPC-X), and the file a
//    `libnccl.so.2` / `libnccl.so` symlink there points to (the name of the
//    target says the version; it may lie in a folder not otherwise searched);
//  - headers: `nccl.h` (NCCL_MAJOR/MINOR/PATCH or NCCL_VERSION_CODE) in the
//    include folders of the same installs — the header may differ from the
//    library beside it, which is itself worth showing;
//  - Python wheels: `nvidia_nccl_cuNN-X.Y.Z.dist-info` in site-packages and
//    dist-packages of the system, /usr/local, conda and conda envs, and in the
//    dist-info/ of a CUDA folder assembled from wheels (the library inside,
//    nvidia/nccl/lib/libnccl.so.2, has no version in its name);
//  - conda packages: `conda-meta/nccl-X.Y.Z[.B]-<build>.json`.
// Only names and small headers are read; library files are never opened.
// A version gdrcheck has no rules for (2.99.99) is kept as found: the caller
// decides what an unknown release means.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/root.h"
#include "nccl/nccl_version.h"

namespace gdrcheck {

enum class NcclInstallKind { Library, Header, Wheel, Conda };

const char* nccl_install_kind_name(NcclInstallKind k);  // "library", "header", "wheel", "conda"

struct InstalledNccl {
  NcclVersion version;
  // Inside the root, with the folder's symlinks resolved:
  //  library: the versioned file ("/usr/lib/x86_64-linux-gnu/libnccl.so.2.21.5");
  //  header:  the nccl.h it was read from;
  //  wheel:   the wheel's library (".../site-packages/nvidia/nccl/lib/libnccl.so.2")
  //           when present, else its dist-info folder;
  //  conda:   the conda-meta record.
  std::string path;
  NcclInstallKind kind = NcclInstallKind::Library;

  bool operator==(const InstalledNccl&) const = default;
};

// Every distinct finding, ordered by kind (library, header, wheel, conda),
// then path, then version. Empty when the root holds no NCCL this finds.
std::vector<InstalledNccl> find_installed_nccl(const Root& root);

// The distinct versions among `found`, oldest first.
std::vector<NcclVersion> installed_nccl_versions(const std::vector<InstalledNccl>& found);

// The folders searched for NCCL libraries, as patterns (one '*' per
// component, see host/root_search.h). The net-plugin search uses them too.
const std::vector<std::string>& nccl_library_folder_patterns();

// The version an nccl.h declares: NCCL_MAJOR, NCCL_MINOR and NCCL_PATCH, or
// else NCCL_VERSION_CODE (X*1000+Y*100+Z up to 2.8, X*10000+Y*100+Z after).
// nullopt when neither is there or the two disagree.
std::optional<NcclVersion> parse_nccl_header(std::string_view text);

}  // namespace gdrcheck
