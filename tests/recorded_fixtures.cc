#include "recorded_fixtures.h"

#include "fixture/node_description.h"
#include "fixture/root_builder.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <stdexcept>

#include <unistd.h>

namespace gdrcheck::testing {
namespace {

namespace fs = std::filesystem;

struct Extracted {
  std::map<std::string, std::string> roots;  // tarball → extraction dir
  std::mutex mu;
  ~Extracted() {
    for (const auto& [tarball, dir] : roots) {
      std::error_code ec;
      // Recorded trees carry read-only directories; make them removable first.
      std::system(("chmod -R u+w '" + dir + "' 2>/dev/null").c_str());
      fs::remove_all(dir, ec);
    }
  }
};

Extracted& extracted() {
  static Extracted e;
  return e;
}

}  // namespace

std::string scratch_dir() {
  Extracted& e = extracted();
  std::string base = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  std::string tmpl = base + "/gdrcheck-test-XXXXXX";
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  std::lock_guard<std::mutex> lock(e.mu);
  e.roots.emplace("scratch:" + tmpl, tmpl);
  return tmpl;
}

std::string fresh_node_root(const std::string& name, const std::vector<std::string>& variants) {
  std::string dir = scratch_dir() + "/root";
  fixture::build_root(fixture::load_node_description(test_data("nodes/" + name + ".json"), variants), dir);
  return dir;
}

std::string node_root(const std::string& name, const std::vector<std::string>& variants) {
  static std::map<std::string, std::string> built;
  static std::mutex mu;
  std::string key = name;
  for (const auto& v : variants) key += "+" + v;
  std::lock_guard<std::mutex> lock(mu);
  auto it = built.find(key);
  if (it == built.end()) it = built.emplace(key, fresh_node_root(name, variants)).first;
  return it->second;
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
  Extracted& e = extracted();
  std::lock_guard<std::mutex> lock(e.mu);
  auto it = e.roots.find(tarball);
  if (it == e.roots.end()) {
    // Recorded trees hold thousands of small files: tmpfs extracts them in a
    // fraction of the time a disk-backed /tmp takes.
    std::string base = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    std::string tmpl = base + "/gdrcheck-test-XXXXXX";
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    std::string dir = tmpl;
    // Paths are our own test data, never user input.
    std::string cmd = "tar -xf '" + test_data(tarball) + "' -C '" + dir + "' 2>/dev/null";
    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("cannot extract " + tarball);
    it = e.roots.emplace(tarball, dir).first;
  }
  return top_folder.empty() ? it->second : it->second + "/" + top_folder;
}

}  // namespace gdrcheck::testing
