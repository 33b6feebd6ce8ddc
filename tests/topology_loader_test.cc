// What the user names as a topology: standard input (capped, never copied
// to a file), FIFOs and device files (refused before anything blocks), and
// files over the size limit.
#include "topology/topology_loader.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <streambuf>

#include "host/user_file.h"
#include "recorded_fixtures.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

namespace fs = std::filesystem;

constexpr const char* kXe8640 = "recorded/flux/ipa20-dell-xe8640-4xH100.xml";

// Endless input that counts what was taken from it.
class EndlessInput : public std::streambuf {
 public:
  std::size_t served = 0;

 protected:
  int_type underflow() override {
    std::fill(std::begin(buf_), std::end(buf_), 'x');
    served += sizeof buf_;
    setg(buf_, buf_, buf_ + sizeof buf_);
    return traits_type::to_int_type(buf_[0]);
  }

 private:
  char buf_[4096];
};

std::string load_problem(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.file() + ": " + e.problem();
  }
  return "";
}

std::size_t temp_copies() {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator("/tmp"))
    if (e.path().filename().string().rfind("gdrcheck-hwloc-", 0) == 0) ++n;
  return n;
}

TEST(TopologyStream, HwlocXmlFromMemoryWithoutATempFile) {
  std::size_t before = temp_copies();
  std::istringstream in(testing::read_test_data(kXe8640));
  Topology t = load_topology_stream(in, "-", TopologyFileKind::Auto);
  EXPECT_EQ(t.kind, SourceKind::HwlocXml);
  EXPECT_EQ(t.source, "-");
  EXPECT_EQ(t.with_role(DeviceRole::Gpu).size(), 4u);
  EXPECT_EQ(temp_copies(), before);
}

TEST(TopologyStream, EndlessInputStopsOneByteOverTheLimit) {
  EndlessInput endless;
  std::istream in(&endless);
  EXPECT_EQ(load_problem([&] { load_topology_stream(in, "-", TopologyFileKind::Auto); }),
            "-: larger than 64 MiB; not a topology file");
  EXPECT_LE(endless.served, kMaxTopologyFile + 1 + 4096);
}

TEST(TopologyStream, InputAtTheLimitIsRead) {
  std::string text(kMaxTopologyFile, ' ');
  std::istringstream in(text);
  // Read whole (not refused for size), then judged by content.
  EXPECT_EQ(load_problem([&] { load_topology_stream(in, "-", TopologyFileKind::Auto); }).rfind("-: not a topology", 0),
            0u);
}

TEST(TopologyStream, EmptyInput) {
  std::istringstream in("");
  EXPECT_EQ(load_problem([&] { load_topology_stream(in, "-", TopologyFileKind::Auto); }), "-: empty file");
}

// A FIFO is read (`topo <(ssh node lstopo --of xml)`); one nobody writes
// to reads as empty at once instead of blocking.
TEST(TopologyFile, FifoWithoutWriterIsEmptyNotBlocking) {
  std::string fifo = testing::scratch_dir() + "/topo.xml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  EXPECT_EQ(load_problem([&] { load_topology_file(fifo, TopologyFileKind::Auto); }), fifo + ": empty file");
}

TEST(TopologyFile, DeviceFileFailsFast) {
  EXPECT_EQ(load_problem([] { load_topology_file("/dev/zero", TopologyFileKind::Auto); }),
            "/dev/zero: a character device, not a topology file");
}

TEST(TopologyFile, LinkTheUserNamedIsFollowed) {
  std::string link = testing::scratch_dir() + "/topo.xml";
  fs::create_symlink(testing::test_data(kXe8640), link);
  Topology t = load_topology_file(link, TopologyFileKind::Auto);
  EXPECT_EQ(t.source, link);
  EXPECT_EQ(t.with_role(DeviceRole::Nic).size(), 4u);
}

TEST(TopologyFile, LinkToADeviceFailsFast) {
  std::string link = testing::scratch_dir() + "/topo.xml";
  fs::create_symlink("/dev/zero", link);
  EXPECT_EQ(load_problem([&] { load_topology_file(link, TopologyFileKind::Auto); }),
            link + ": a character device, not a topology file");
}

TEST(TopologyFile, OverTheLimitIsRefused) {
  std::string big = testing::scratch_dir() + "/big.xml";
  { std::ofstream(big) << "<topology>"; }
  fs::resize_file(big, kMaxTopologyFile);  // sparse: no disk needed
  EXPECT_EQ(load_problem([&] { load_topology_file(big, TopologyFileKind::Auto); }),
            big + ": larger than 64 MiB; not a topology file");
}

TEST(TopologyFile, MissingAndDirectory) {
  EXPECT_EQ(load_problem([] { load_topology_file("/nonexistent/topo.xml", TopologyFileKind::Auto); }),
            "/nonexistent/topo.xml: no such file");
  std::string dir = testing::scratch_dir();
  EXPECT_NE(load_problem([&] { load_topology_file(dir, TopologyFileKind::Auto); }).find("is a directory"),
            std::string::npos);
}

TEST(TopologyFile, EntityDeclarationIsRefused) {
  std::string path = testing::scratch_dir() + "/ent.xml";
  std::string text = testing::read_test_data(kXe8640);
  std::size_t at = text.find("<!DOCTYPE");
  text.replace(at, text.find('\n', at) - at, "<!DOCTYPE topology [<!ENTITY a \"x\">]>");
  std::ofstream(path) << text;
  EXPECT_NE(
      load_problem([&] { load_topology_file(path, TopologyFileKind::Auto); }).find(path + ": declares an XML entity"),
      std::string::npos);
}

TEST(UserFile, WordingForEveryCommand) {
  EXPECT_EQ(load_problem([] { read_user_file("/nonexistent.json", 1 << 20, "manifest"); }),
            "/nonexistent.json: not found");
  std::string dir = testing::scratch_dir();
  EXPECT_EQ(load_problem([&] { read_user_file(dir, 1 << 20, "manifest"); }), dir + ": is a directory, not a manifest");
  std::string small = dir + "/m.json";
  std::ofstream(small) << "{}";
  EXPECT_EQ(read_user_file(small, 1 << 20, "manifest"), "{}");
  fs::resize_file(small, 1 << 20);
  EXPECT_EQ(load_problem([&] { read_user_file(small, 1 << 20, "manifest"); }),
            small + ": larger than 1 MiB; not a manifest");
}

}  // namespace
}  // namespace gdrcheck
