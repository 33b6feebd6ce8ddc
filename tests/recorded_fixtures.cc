#include "recorded_fixtures.h"

#include "fixture/node_description.h"
#include "fixture/root_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <stdexcept>

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace gdrcheck::testing {
namespace {

namespace fs = std::filesystem;

void remove_tree(const std::string& dir) {
  // Recorded trees carry read-only directories; make them removable first.
  std::system(("chmod -R u+w '" + dir + "' 2>/dev/null").c_str());
  std::error_code ec;
  fs::remove_all(dir, ec);
}

// Scratch directories of this process, removed when it exits.
struct ScratchDirs {
  std::vector<std::string> dirs;
  std::mutex mu;
  ~ScratchDirs() {
    for (const auto& dir : dirs) remove_tree(dir);
  }
};

ScratchDirs& scratch_dirs() {
  static ScratchDirs s;
  return s;
}

// Read-only roots are shared by every process of one test binary: each test
// runs in its own process, and building a root on a disk-backed file system
// takes seconds (thousands of small files). They live in the build directory
// under a folder named after the test binary's own build, so a rebuilt
// binary never reads roots an older builder made; older folders are removed.
std::string cache_folder() {
  static const std::string folder = [] {
    struct stat st {};
    if (::stat("/proc/self/exe", &st) != 0) throw std::runtime_error("cannot stat the test binary");
    fs::path base = GDRCHECK_TEST_CACHE;
    std::string stamp =
        std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + "-" + std::to_string(st.st_size);
    fs::create_directories(base / stamp);
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(base, ec))
      if (entry.path().filename() != stamp) remove_tree(entry.path().string());
    return (base / stamp).string();
  }();
  return folder;
}

// The cached directory `key`, made by `make` on first use. Made under a
// temporary name and published by rename(): a process running at the same
// time sees either no root or a whole one, and the loser of a race throws
// its copy away.
std::string cached(const std::string& key, const std::function<void(const std::string&)>& make) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  std::string final_dir = cache_folder() + "/" + key;
  if (fs::is_directory(final_dir)) return final_dir;
  std::string tmp = cache_folder() + "/.tmp-" + key + "-XXXXXX";
  if (!::mkdtemp(tmp.data())) throw std::runtime_error("mkdtemp failed in " + cache_folder());
  try {
    make(tmp + "/r");
  } catch (...) {
    remove_tree(tmp);
    throw;
  }
  if (::rename((tmp + "/r").c_str(), final_dir.c_str()) != 0 && !fs::is_directory(final_dir)) {
    remove_tree(tmp);
    throw std::runtime_error("cannot publish " + final_dir);
  }
  remove_tree(tmp);
  return final_dir;
}

// Node descriptions may change without the test binary being rebuilt.
std::string node_descriptions_hash() {
  static const std::string hash = [] {
    std::string all;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(test_data("nodes"))) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::ifstream in(f, std::ios::binary);
      all += f.filename().string() + std::string(std::istreambuf_iterator<char>(in), {});
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016zx", std::hash<std::string>{}(all));
    return std::string(hex);
  }();
  return hash;
}

}  // namespace

std::string scratch_base() {
  static const std::string base = [] {
    if (const char* forced = std::getenv("GDRCHECK_TEST_TMPDIR"); forced && *forced) return std::string(forced);
    // Recorded and built roots hold thousands of small files (a built DGX
    // root takes ~18 MB of tmpfs pages): tmpfs is much faster than a disk,
    // but container /dev/shm is often 64 MB, and a full one makes every root
    // read fail. Use it only when it has room for both parallel test jobs.
    constexpr unsigned long long kNeeded = 2ULL << 30;
    struct statvfs fs {};
    if (::access("/dev/shm", W_OK) == 0 && ::statvfs("/dev/shm", &fs) == 0 &&
        static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize >= kNeeded)
      return std::string("/dev/shm");
    const char* tmp = std::getenv("TMPDIR");
    return std::string(tmp && *tmp ? tmp : "/tmp");
  }();
  return base;
}

std::string scratch_dir() {
  ScratchDirs& s = scratch_dirs();
  std::string tmpl = scratch_base() + "/gdrcheck-test-XXXXXX";
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  std::lock_guard<std::mutex> lock(s.mu);
  s.dirs.push_back(tmpl);
  return tmpl;
}

std::string fresh_node_root(const std::string& name, const std::vector<std::string>& variants) {
  std::string dir = scratch_dir() + "/root";
  fixture::build_root(fixture::load_node_description(test_data("nodes/" + name + ".json"), variants), dir);
  return dir;
}

std::string node_root(const std::string& name, const std::vector<std::string>& variants) {
  std::string key = "node-" + name;
  for (const auto& v : variants) key += "+" + v;
  key += "-" + node_descriptions_hash();
  return cached(key, [&](const std::string& dir) {
    fixture::build_root(fixture::load_node_description(test_data("nodes/" + name + ".json"), variants), dir);
  });
}

std::string test_data(const std::string& relative) {
  return std::string(GDRCHECK_TEST_DATA) + "/" + relative;
}

std::string read_test_data(const std::string& relative) {
  std::ifstream in(test_data(relative), std::ios::binary);
  EXPECT_TRUE(in) << "missing test file " << relative;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string recorded_root(const std::string& tarball, const std::string& top_folder) {
  struct stat st {};
  if (::stat(test_data(tarball).c_str(), &st) != 0) throw std::runtime_error("missing test file " + tarball);
  std::string key = "recorded-" + fs::path(tarball).filename().string() + "-" + std::to_string(st.st_size) + "-" +
                    std::to_string(st.st_mtim.tv_sec);
  std::string dir = cached(key, [&](const std::string& into) {
    fs::create_directories(into);
    // Paths are our own test data, never user input.
    std::string cmd = "tar -xf '" + test_data(tarball) + "' -C '" + into + "' 2>/dev/null";
    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("cannot extract " + tarball);
  });
  return top_folder.empty() ? dir : dir + "/" + top_folder;
}

}  // namespace gdrcheck::testing
