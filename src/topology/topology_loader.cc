#include "topology/topology_loader.h"

#include <sys/stat.h>

#include <algorithm>
#include <iostream>

#include "host/root.h"
#include "host/user_file.h"
#include "topology/input_error.h"
#include "topology/nccl_xml_source.h"
#include "topology/smi_text_source.h"

namespace gdrcheck {
namespace {

// A stream has no size to check first: at most one byte over the limit is
// read, so input of any length is refused without being held.
std::string read_stream(std::istream& in, const std::string& name) {
  std::string text;
  char buf[65536];
  while (text.size() <= kMaxTopologyFile && in) {
    in.read(buf, static_cast<std::streamsize>(std::min(sizeof buf, kMaxTopologyFile + 1 - text.size())));
    text.append(buf, static_cast<std::size_t>(in.gcount()));
  }
  if (text.size() > kMaxTopologyFile)
    throw InputError(name, "larger than " + std::to_string(kMaxTopologyFile >> 20) + " MiB; not a topology file");
  if (in.bad()) throw InputError(name, "read error");
  return text;
}

std::string read_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw InputError(path, "no such file");
  if (S_ISDIR(st.st_mode)) throw InputError(path, "is a directory (to read a recorded host, use --root " + path + ")");
  return read_user_file(path, kMaxTopologyFile, "topology file");
}

// NUL bytes or more than 10 % control bytes in the first 4 KiB: binary
// data, whichever of the three formats was meant.
bool looks_like_binary_topology(const std::string& text) {
  std::size_t n = std::min<std::size_t>(text.size(), 4096), odd = 0;
  for (std::size_t i = 0; i < n; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == 0) return true;
    if (c < 0x09 || (c > 0x0d && c < 0x20 && c != 0x1b)) ++odd;
  }
  return n > 0 && odd * 10 > n;
}

TopologyFileKind detect(const std::string& text) {
  if (looks_like_nccl_xml(text)) return TopologyFileKind::NcclXml;
  if (looks_like_hwloc_xml(text)) return TopologyFileKind::HwlocXml;
  if (looks_like_smi_text(text)) return TopologyFileKind::SmiText;
  return TopologyFileKind::Auto;
}

Topology load_topology_text(const std::string& text, const std::string& path, TopologyFileKind kind,
                            const DeviceSelection& extra) {
  if (text.empty()) throw InputError(path, "empty file");
  if (looks_like_binary_topology(text))
    throw InputError(path,
                     "binary data, not a topology (expected hwloc XML, NCCL topology XML or nvidia-smi topo -m text)");
  if (kind == TopologyFileKind::Auto) kind = detect(text);
  switch (kind) {
    case TopologyFileKind::HwlocXml:
      return read_hwloc_xml_text(text, path, extra);
    case TopologyFileKind::NcclXml:
      return read_nccl_xml(text, path);
    case TopologyFileKind::SmiText:
      return read_smi_text(text, path);
    case TopologyFileKind::Auto:
      break;
  }
  throw InputError(path,
                   "not a topology: expected hwloc XML (lstopo --of xml), NCCL topology XML (<system version=\"1\">) "
                   "or nvidia-smi topo -m text");
}

}  // namespace

bool parse_topology_file_kind(const std::string& text, TopologyFileKind* out) {
  if (text == "auto")
    *out = TopologyFileKind::Auto;
  else if (text == "hwloc-xml")
    *out = TopologyFileKind::HwlocXml;
  else if (text == "nccl-xml")
    *out = TopologyFileKind::NcclXml;
  else if (text == "smi-text")
    *out = TopologyFileKind::SmiText;
  else
    return false;
  return true;
}

Topology load_topology_file(const std::string& path, TopologyFileKind kind, const DeviceSelection& extra) {
  if (path == "-") return load_topology_stream(std::cin, "-", kind, extra);
  return load_topology_text(read_file(path), path, kind, extra);
}

Topology load_topology_stream(std::istream& in, const std::string& name, TopologyFileKind kind,
                              const DeviceSelection& extra) {
  return load_topology_text(read_stream(in, name), name, kind, extra);
}

Topology load_topology_root(const std::string& root_dir, const DeviceSelection& extra) {
  struct stat st {};
  if (::stat(root_dir.c_str(), &st) != 0) throw InputError(root_dir, "no such directory");
  if (!S_ISDIR(st.st_mode)) throw InputError(root_dir, "not a directory (a topology file is given without --root)");
  return read_sysfs_topology(Root(root_dir), extra);
}

}  // namespace gdrcheck
