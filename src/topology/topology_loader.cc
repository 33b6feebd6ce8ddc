#include "topology/topology_loader.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "host/root.h"
#include "host/user_file.h"
#include "topology/input_error.h"
#include "topology/nccl_xml_source.h"
#include "topology/smi_text_source.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kMaxTopologyFile = 64u << 20;  // 64 MiB: no real topology is near this

std::string read_input(const std::string& path) {
  if (path == "-") {
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    return text;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw InputError(path, "no such file");
  if (S_ISDIR(st.st_mode)) throw InputError(path, "is a directory (to read a recorded host, use --root " + path + ")");
  return read_user_file(path, kMaxTopologyFile, "topology file");
}

bool looks_binary(const std::string& text) {
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

// hwloc loads XML only from a file or a buffer; use the buffer so stdin works too.
Topology hwloc_from_text(const std::string& path, const std::string& text, const DeviceSelection& extra) {
  if (path != "-") return read_hwloc_xml(path, extra);
  char tmpl[] = "/tmp/gdrcheck-hwloc-XXXXXX";
  int fd = ::mkstemp(tmpl);
  if (fd < 0) throw InputError(path, "cannot create a temporary file for hwloc");
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!ok) {
    ::unlink(tmpl);
    throw InputError(path, "cannot write a temporary file for hwloc");
  }
  try {
    Topology t = read_hwloc_xml(tmpl, extra);
    ::unlink(tmpl);
    t.source = path;  // "-": the file hwloc read was a temporary copy of stdin
    return t;
  } catch (const InputError& e) {
    ::unlink(tmpl);
    throw InputError(path, e.problem());
  }
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
  std::string text = read_input(path);
  if (text.empty()) throw InputError(path, "empty file");
  if (looks_binary(text))
    throw InputError(path,
                     "binary data, not a topology (expected hwloc XML, NCCL topology XML or nvidia-smi topo -m text)");
  if (kind == TopologyFileKind::Auto) kind = detect(text);
  switch (kind) {
    case TopologyFileKind::HwlocXml:
      return hwloc_from_text(path, text, extra);
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

Topology load_topology_root(const std::string& root_dir, const DeviceSelection& extra) {
  struct stat st {};
  if (::stat(root_dir.c_str(), &st) != 0) throw InputError(root_dir, "no such directory");
  if (!S_ISDIR(st.st_mode)) throw InputError(root_dir, "not a directory (a topology file is given without --root)");
  return read_sysfs_topology(Root(root_dir), extra);
}

}  // namespace gdrcheck
