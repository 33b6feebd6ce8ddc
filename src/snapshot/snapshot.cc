#include "snapshot/snapshot.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>

#include "host/host_state.h"
#include "host/interface_addresses.h"
#include "host/root.h"
#include "report/json_text.h"
#include "snapshot/root_capture.h"
#include "snapshot/snapshot_manifest.h"
#include "snapshot/tarball_writer.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

int open_new_output(const std::string& path) {
  if (path == "-") {
    if (::isatty(STDOUT_FILENO)) throw InputError("-", "standard output is a terminal; redirect it or give -o FILE");
    return STDOUT_FILENO;
  }
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  if (errno == EEXIST) throw InputError(path, "already exists; not overwritten");
  throw InputError(path, std::strerror(errno));
}

// On this machine nvidia-smi is run (with its timeout); its outputs are
// stored where a recorded root keeps them. A recorded root's copies were
// captured by the walk already.
void add_nvidia_smi(RootCapture& c, const SnapshotOptions& o) {
  if (o.root != "/") return;
  NvidiaSmiOutputs out = read_nvidia_smi_outputs(Root("/"), o.nvidia_smi);
  for (auto [output, path] :
       {std::pair{&out.topo_matrix, kTopoMatrixCapture}, {&out.nvlink_status, kNvlinkStatusCapture}}) {
    if (output->ok()) {
      add_captured_file(c, std::string(path).substr(1), *output->text);
      continue;
    }
    for (auto& m : c.missing)
      if (m.path == path) m.why = output->command + ": " + output->missing;
  }
}

// /proc/mounts is a link to the reading process's table: on this machine
// the table itself is stored in its place (gdrcheck gds reads it).
void add_mount_table(RootCapture& c, const SnapshotOptions& o) {
  if (o.root != "/") return;
  FileRead r = Root("/").read("/proc/self/mounts", 4u << 20);
  if (r.ok()) add_captured_file(c, "proc/mounts", r.content);
  // Interface addresses are in no file: gdrcheck gds ties cuFile's
  // rdma_dev_addr_list to NICs with them (host/interface_addresses.h).
  add_captured_file(c, std::string(kAddressesCapture).substr(1), live_addresses_text());
}

SnapshotSummary capture_into(int fd, const SnapshotOptions& o) {
  RootCapture c = capture_root(o.root);
  add_nvidia_smi(c, o);
  add_mount_table(c, o);
  auto manifest =
      snapshot_manifest(c, std::chrono::system_clock::now(), root_hostname(Root(o.root)), ::geteuid(), o.root);
  write_snapshot_tarball(fd, json_text(manifest) + "\n", c);
  return {c.entries.size(), c.missing.size()};
}

}  // namespace

SnapshotSummary write_snapshot(const SnapshotOptions& options) {
  int fd = open_new_output(options.output);
  bool is_file = options.output != "-";
  try {
    SnapshotSummary s = capture_into(fd, options);
    if (is_file) {
      int closed = ::close(fd);
      fd = -1;
      if (closed != 0) throw std::runtime_error("writing the snapshot: " + std::string(std::strerror(errno)));
    }
    return s;
  } catch (...) {
    if (is_file) {
      if (fd >= 0) ::close(fd);
      ::unlink(options.output.c_str());  // only the file this run created: O_EXCL made it ours
    }
    throw;
  }
}

}  // namespace gdrcheck
