// A topology naming a CPU or NUMA node no machine has (an os_index near
// 2^32, or a NUMA node with none) is refused, and reading it stays small:
// hwloc would size its bitmaps by the index (512 MiB each; a 3 KB file
// took 1 GB before the limit).
#include "topology/hwloc_index_bounds.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "host/address_space_limit.h"
#include "recorded_fixtures.h"
#include "topology/hwloc_source.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

std::string xe8640_xml() {
  return testing::read_test_data("recorded/flux/ipa20-dell-xe8640-4xH100.xml");
}

// The first object of `type` gets `attribute` in place of its os_index.
std::string with_first_os_index(std::string text, const std::string& type, const std::string& attribute) {
  std::size_t at = text.find("type=\"" + type + "\" os_index=\"");
  if (at == std::string::npos) throw std::runtime_error("no " + type + " with an os_index");
  std::size_t begin = text.find("os_index=\"", at);
  std::size_t end = text.find('"', begin + 10) + 1;
  text.replace(begin, end - begin, attribute);
  return text;
}

long resident_kib_now() {
  std::FILE* f = std::fopen("/proc/self/statm", "re");
  if (!f) return 0;
  long size = 0, resident = 0;
  bool read = std::fscanf(f, "%ld %ld", &size, &resident) == 2;
  std::fclose(f);
  return read ? resident * (::sysconf(_SC_PAGESIZE) / 1024) : 0;
}

std::string hwloc_problem(const std::string& text) {
  try {
    read_hwloc_xml_text(text, "odd.xml");
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "odd.xml");
    return e.problem();
  }
  return "";
}

TEST(HwlocIndexBounds, RealTopologyLoads) {
  Topology t = read_hwloc_xml_text(xe8640_xml(), "xe8640.xml");
  EXPECT_EQ(t.with_role(DeviceRole::Gpu).size(), 4u);
}

TEST(HwlocIndexBounds, PuNumberedNearTwoToThe32IsRefused) {
  std::string p = hwloc_problem(with_first_os_index(xe8640_xml(), "PU", "os_index=\"4294967290\""));
  EXPECT_NE(p.find("a PU with os_index 4294967290"), std::string::npos) << p;
  EXPECT_NE(p.find("65535"), std::string::npos) << p;
}

TEST(HwlocIndexBounds, NumaNodeWithoutAnIndexIsRefused) {
  std::string p = hwloc_problem(with_first_os_index(xe8640_xml(), "NUMANode", "os_indey=\"0\""));
  EXPECT_NE(p.find("a NUMA node with os_index none"), std::string::npos) << p;
}

TEST(HwlocIndexBounds, LargestPlausibleIndexesStillLoad) {
  std::string text = with_first_os_index(xe8640_xml(), "NUMANode", "os_index=\"1023\"");
  EXPECT_NO_THROW(read_hwloc_xml_text(text, "big.xml"));
}

// Runs `read` in a child of the test, so that its peak memory (the probe
// child's and its own) is measured alone: KiB over what this process had.
// The read must end with a topology or an InputError.
long peak_kib_over_this_process(const std::function<void()>& read) {
  long resident_kib = resident_kib_now();
  EXPECT_GT(resident_kib, 0);
  pid_t pid = ::fork();
  if (pid == 0) {
    int code = 0;
    try {
      read();
    } catch (const InputError&) {
    } catch (...) {
      code = 1;
    }
    ::_exit(code);
  }
  int status = 0;
  rusage usage{};
  EXPECT_EQ(::wait4(pid, &status, 0, &usage), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "ended otherwise";
  return usage.ru_maxrss - resident_kib;
}

TEST(HwlocIndexBounds, ReadingTheRefusedFileStaysSmall) {
  if (sanitizer_reserves_address_space()) GTEST_SKIP() << "no address-space limit in a sanitizer build";
  std::string text = with_first_os_index(xe8640_xml(), "PU", "os_index=\"4294967290\"");
  // hwloc's bitmaps took 1 GiB more before the limit.
  EXPECT_LT(peak_kib_over_this_process([&] { read_hwloc_xml_text(text, "odd.xml"); }), 200 * 1024);
}

void overwrite_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}

// A recorded root claiming CPU 4294967290 (online, possible and its own
// directory): the probe child took 3 GiB and was stopped at its 60 s limit
// before the address-space limit; a NUMA node 4294967290, 0.5 GiB.
TEST(HwlocIndexBounds, RecordedRootWithImpossibleCpuAndNodeStaysSmall) {
  if (sanitizer_reserves_address_space()) GTEST_SKIP() << "no address-space limit in a sanitizer build";
  namespace fs = std::filesystem;
  std::string root = testing::scratch_dir() + "/impossible-cpu";
  fs::copy(testing::qib_root(), root, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  std::string cpu = root + "/sys/devices/system/cpu";
  std::string node = root + "/sys/devices/system/node";
  overwrite_file(cpu + "/online", "0-39,4294967290\n");
  overwrite_file(cpu + "/possible", "0-39,4294967290\n");
  fs::copy(cpu + "/cpu39", cpu + "/cpu4294967290", fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  fs::rename(node + "/node3", node + "/node4294967290");
  overwrite_file(node + "/online", "0-2,4294967290\n");
  overwrite_file(node + "/possible", "0-2,4294967290\n");
  auto start = std::chrono::steady_clock::now();
  EXPECT_LT(peak_kib_over_this_process([&] { read_sysfs_topology(Root(root)); }), 200 * 1024);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

}  // namespace
}  // namespace gdrcheck
