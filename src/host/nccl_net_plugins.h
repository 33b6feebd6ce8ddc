// NCCL net plugins installed in a root. An external net plugin replaces
// NCCL's own IB transport, and with it the GDR decision: EFA through
// aws-ofi-nccl, HPC-X's IBext (nccl-rdma-sharp-plugins), Google's gIB. NCCL
// opens the plugin by file name with dlopen: `libnccl-net.so` by default;
// with NCCL_NET_PLUGIN=NAME the name itself, then `libnccl-net-NAME.so`;
// "none" loads no plugin (NCCL 2.30.7, src/plugin/net.cc and plugin_open.cc;
// older releases tried only `libnccl-net-NAME.so`).
//
// Searched: the folders of the plugins' installs (aws-ofi-nccl under
// /opt/amazon/ofi-nccl and /opt/aws-ofi-nccl, HPC-X's
// nccl_rdma_sharp_plugin, gIB under /usr/local/gib, GKE's
// /usr/local/nvidia/lib64), the loader's folders (host/ld_so_conf.h) and the
// NCCL library folders (host/nccl_install.h). Only `libnccl-net.so` and
// `libnccl-net-*.so` are taken: the names NCCL can ask for.
#pragma once

#include <string>
#include <vector>

#include "host/root.h"

namespace gdrcheck {

struct NetPluginFile {
  // Inside the root; the folder's symlinks resolved, the file's own name
  // kept (libnccl-net.so is often a link to a versioned file).
  std::string path;
  std::string file_name;  // "libnccl-net.so", "libnccl-net-ofi.so": the name dlopen is given
  // "aws-ofi-nccl", "nccl-rdma-sharp-plugins", "gib" or "unknown".
  std::string plugin;
  // How `plugin` was decided, for a finding's evidence: "folder
  // /opt/amazon/ofi-nccl", "file name libnccl-net-ofi.so", "marker \"AWS
  // Libfabric\" in the first 4 MiB (heuristic)", or why it stayed unknown.
  std::string identified_by;
  // Whether the loader finds it without LD_LIBRARY_PATH (its folder is in
  // ld.so.conf or a default loader folder). Files elsewhere are used only
  // when the job's LD_LIBRARY_PATH names their folder.
  bool on_loader_path = false;

  bool operator==(const NetPluginFile&) const = default;
};

// Every plugin file, in the order a loader is assumed to meet them (see
// plugin_nccl_loads), then by name within a folder. Each folder is searched
// once however many symlinks lead to it; at most 32 files per folder and 64
// in all; the first 16 files are scanned for markers.
std::vector<NetPluginFile> find_net_plugins(const Root& root);

// The file NCCL would load for an NCCL_NET_PLUGIN value ("" = unset: the
// default libnccl-net.so), or nullptr for "none" or when no file in `files`
// has a name NCCL asks for. A comma-separated list is tried in order. This
// approximates the loader: the job's LD_LIBRARY_PATH is not known, so a
// plugin in its own install folder is assumed to be on it (its installer or
// the site's modules put it there, and LD_LIBRARY_PATH wins over the
// loader's cache), and otherwise the first file in `files` order with the
// asked name is taken. A value with a '/' is a path and matches `path`
// exactly (so a path through a symlinked folder, /opt/hpcx → hpcx-v2.18,
// must be given with the folder resolved). The first plugin found is taken;
// NCCL would go on to the next name when a plugin finds no devices.
const NetPluginFile* plugin_nccl_loads(const std::vector<NetPluginFile>& files,
                                       const std::string& nccl_net_plugin_setting);

}  // namespace gdrcheck
