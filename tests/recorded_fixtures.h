// Access to the test data. Recorded sysfs trees and roots built from node
// descriptions are read-only and shared by every test process of one build
// (cached under <build>/test-roots); scratch directories are per process
// and removed at exit.
#pragma once

#include <fstream>
#include <string>
#include <vector>

namespace gdrcheck::testing {

// Absolute path of a file under tests/data.
std::string test_data(const std::string& relative);

// The bytes of a file under tests/data; a missing file fails the test.
std::string read_test_data(const std::string& relative);

// Extracts tests/data/<tarball> and returns the directory that stands for
// "/" (the archive's top folder, or the extraction dir when there is none).
std::string recorded_root(const std::string& tarball, const std::string& top_folder);

// Named recorded trees from tests/data/recorded/README.md.
inline std::string ve_root() {  // Supermicro PLX tree, 8 NEC VE, 2 ConnectX-4
  return recorded_root("recorded/hwloc/linux/32intel64-2p8co2t+8ve.tar.bz2", "32intel64-2p8co2t+8ve");
}
inline std::string mic_root() {  // Xeon Phi + ConnectX-3 (mlx4_0), scif0
  return recorded_root("recorded/hwloc/linux/32em64t-2n8c+dax+nvme+mic+dimms.tar.bz2", "32em64t-2n8c+1mic");
}
inline std::string qib_root() {  // QLogic IB NIC, no GPU
  return recorded_root("recorded/hwloc/linux/40intel64-2g2n4c+pcilocality.tar.bz2", "40intel64-2g2n4c+pci");
}
inline std::string p100_vm_root() {  // QEMU VM with a passed-through P100
  return recorded_root("recorded/ghw/linux-amd64-accel-nvidia.tar.gz", "");
}

// Named recorded files from tests/data/recorded/README.md.
inline std::string oci_h100_xml() {  // NCCL topology dump of OCI BM.GPU.H100.8
  return test_data("recorded/oci-hpc/H100-topology.xml");
}

// A root built from tests/data/nodes/<name>.json with the given variants,
// built once per build of the tests (read-only use: never change it).
std::string node_root(const std::string& name, const std::vector<std::string>& variants = {});

// A freshly built root the test may change; removed at exit.
std::string fresh_node_root(const std::string& name, const std::vector<std::string>& variants = {});

// Where test directories go: $GDRCHECK_TEST_TMPDIR if set, else /dev/shm
// when it has room (2 GiB free), else $TMPDIR or /tmp.
std::string scratch_base();

// A writable temporary directory under scratch_base(), removed at exit.
std::string scratch_dir();

// Writes `bytes` to a file NAME in a new scratch_dir(); returns its path.
inline std::string scratch_file(const std::string& name, const std::string& bytes) {
  std::string path = scratch_dir() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

}  // namespace gdrcheck::testing
