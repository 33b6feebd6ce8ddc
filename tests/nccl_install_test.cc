// NCCL installs found in built roots shaped like real nodes (NGC
// containers, conda, CUDA toolkit installs) and in hostile ones.
#include "host/nccl_install.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <thread>

#include "nccl_versions.h"

namespace gdrcheck {
namespace {

namespace fs = std::filesystem;
using testing::nccl_version;

// The version block of nccl.h as NCCL's build writes it.
std::string nccl_header(int major, int minor, int patch, int code) {
  return "#ifndef NCCL_H_\n#define NCCL_H_\n\n#include <cuda_runtime.h>\n\n#define NCCL_MAJOR " +
         std::to_string(major) + "\n#define NCCL_MINOR " + std::to_string(minor) + "\n#define NCCL_PATCH " +
         std::to_string(patch) + "\n#define NCCL_SUFFIX \"\"\n\n#define NCCL_VERSION_CODE " + std::to_string(code) +
         "\n#define NCCL_VERSION(X,Y,Z) (((X) <= 2 && (Y) <= 8) ? (X) * 1000 + (Y) * 100 + (Z) : "
         "(X) * 10000 + (Y) * 100 + (Z))\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n";
}

InstalledNccl library(const char* version, const std::string& path) {
  return {nccl_version(version), path, NcclInstallKind::Library};
}
InstalledNccl header(const char* version, const std::string& path) {
  return {nccl_version(version), path, NcclInstallKind::Header};
}
InstalledNccl wheel(const char* version, const std::string& path) {
  return {nccl_version(version), path, NcclInstallKind::Wheel};
}
InstalledNccl conda(const char* version, const std::string& path) {
  return {nccl_version(version), path, NcclInstallKind::Conda};
}

// Runs the search on another thread so a search that blocks (on a FIFO)
// fails the test instead of hanging the suite.
std::optional<std::vector<InstalledNccl>> find_within_seconds(const Root& root, int seconds) {
  auto result = std::make_shared<std::promise<std::vector<InstalledNccl>>>();
  auto future = result->get_future();
  std::thread([root, result] { result->set_value(find_installed_nccl(root)); }).detach();
  if (future.wait_for(std::chrono::seconds(seconds)) != std::future_status::ready) return std::nullopt;
  return future.get();
}

class NcclInstallTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gdrcheck-nccl-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  void TearDown() override {
    fs::remove_all(dir_);
    if (!outside_.empty()) fs::remove_all(outside_);
  }
  void folder(const std::string& inside) { fs::create_directories(dir_ + inside); }
  void file(const std::string& inside, const std::string& text = "ELF") {
    fs::create_directories(fs::path(dir_ + inside).parent_path());
    std::ofstream(dir_ + inside) << text;
  }
  void link(const std::string& inside, const std::string& target) {
    fs::create_directories(fs::path(dir_ + inside).parent_path());
    fs::create_symlink(target, dir_ + inside);
  }
  void fifo(const std::string& inside) {
    fs::create_directories(fs::path(dir_ + inside).parent_path());
    ASSERT_EQ(::mkfifo((dir_ + inside).c_str(), 0600), 0);
  }
  // A folder beside the root, for links that try to leave it.
  std::string outside() {
    char tmpl[] = "/tmp/gdrcheck-outside-XXXXXX";
    outside_ = ::mkdtemp(tmpl);
    return outside_;
  }
  std::vector<InstalledNccl> find() { return find_installed_nccl(Root(dir_)); }

  std::string dir_, outside_;
};

TEST_F(NcclInstallTest, NgcPytorchContainer) {
  file("/usr/lib/x86_64-linux-gnu/libnccl.so.2.21.5");
  link("/usr/lib/x86_64-linux-gnu/libnccl.so.2", "libnccl.so.2.21.5");
  link("/usr/lib/x86_64-linux-gnu/libnccl.so", "libnccl.so.2");
  file("/usr/lib/x86_64-linux-gnu/libnccl_static.a");
  file("/usr/include/nccl.h", nccl_header(2, 21, 5, 22105));
  file("/usr/include/nccl_net.h", "#define NCCL_NET_HANDLE_MAXSIZE 128\n");
  std::string site = "/usr/local/lib/python3.10/dist-packages";
  file(site + "/nvidia_nccl_cu12-2.21.5.dist-info/METADATA", "Metadata-Version: 2.1\nName: nvidia-nccl-cu12\n");
  file(site + "/nvidia/nccl/lib/libnccl.so.2");
  auto found = find();
  EXPECT_EQ(found, (std::vector<InstalledNccl>{library("2.21.5", "/usr/lib/x86_64-linux-gnu/libnccl.so.2.21.5"),
                                               header("2.21.5", "/usr/include/nccl.h"),
                                               wheel("2.21.5", site + "/nvidia/nccl/lib/libnccl.so.2")}));
  EXPECT_EQ(installed_nccl_versions(found), std::vector<NcclVersion>{nccl_version("2.21.5")});
}

TEST_F(NcclInstallTest, CondaBaseAndEnvironments) {
  file("/opt/conda/lib/libnccl.so.2.18.3");
  link("/opt/conda/lib/libnccl.so.2", "libnccl.so.2.18.3");
  file("/opt/conda/conda-meta/nccl-2.18.3.1-h6103f9b_0.json", "{}");
  file("/opt/conda/conda-meta/nccl-tests-2.13.8-h1234_0.json", "{}");  // another package
  file("/opt/conda/envs/train/conda-meta/nccl-2.21.5.1-h3a97aeb_1.json", "{}");
  file("/opt/conda/envs/train/lib/libnccl.so.2.21.5");
  std::string site = "/opt/conda/lib/python3.11/site-packages";
  folder(site + "/nvidia_nccl_cu12-2.20.5.dist-info");  // dist-info without its library
  auto found = find();
  EXPECT_EQ(found, (std::vector<InstalledNccl>{
                       library("2.21.5", "/opt/conda/envs/train/lib/libnccl.so.2.21.5"),
                       library("2.18.3", "/opt/conda/lib/libnccl.so.2.18.3"),
                       wheel("2.20.5", site + "/nvidia_nccl_cu12-2.20.5.dist-info"),
                       conda("2.18.3", "/opt/conda/conda-meta/nccl-2.18.3.1-h6103f9b_0.json"),
                       conda("2.21.5", "/opt/conda/envs/train/conda-meta/nccl-2.21.5.1-h3a97aeb_1.json")}));
  EXPECT_EQ(installed_nccl_versions(found),
            (std::vector<NcclVersion>{nccl_version("2.18.3"), nccl_version("2.20.5"), nccl_version("2.21.5")}));
}

TEST_F(NcclInstallTest, CudaToolkitInstallIsFoundOnceThroughItsLinks) {
  std::string targets = "/usr/local/cuda-12.4/targets/x86_64-linux";
  file(targets + "/lib/libnccl.so.2.19.3");
  file(targets + "/include/nccl.h", nccl_header(2, 19, 3, 21903));
  link("/usr/local/cuda-12.4/lib64", "targets/x86_64-linux/lib");
  link("/usr/local/cuda-12.4/include", "targets/x86_64-linux/include");
  link("/usr/local/cuda", "/usr/local/cuda-12.4");
  EXPECT_EQ(find(), (std::vector<InstalledNccl>{library("2.19.3", targets + "/lib/libnccl.so.2.19.3"),
                                                header("2.19.3", targets + "/include/nccl.h")}));
}

// A CUDA folder assembled from NVIDIA's wheels: the library keeps the
// wheel's unversioned name, so only the dist-info and the header say which
// NCCL it is.
TEST_F(NcclInstallTest, CudaFolderAssembledFromWheels) {
  file("/usr/local/cuda-13.0/lib/libnccl.so.2");
  link("/usr/local/cuda-13.0/lib/libnccl.so", "libnccl.so.2");
  link("/usr/local/cuda-13.0/lib64", "lib");
  folder("/usr/local/cuda-13.0/dist-info/nvidia_nccl_cu13-2.28.9.dist-info");
  folder("/usr/local/cuda-13.0/dist-info/nvidia_cudnn_cu13-9.19.0.56.dist-info");
  file("/usr/local/cuda-13.0/include/nccl.h", nccl_header(2, 28, 9, 22809));
  link("/usr/local/cuda", "/usr/local/cuda-13.0");
  EXPECT_EQ(find(), (std::vector<InstalledNccl>{
                        header("2.28.9", "/usr/local/cuda-13.0/include/nccl.h"),
                        wheel("2.28.9", "/usr/local/cuda-13.0/dist-info/nvidia_nccl_cu13-2.28.9.dist-info")}));
}

TEST_F(NcclInstallTest, LibraryLinkLeadsToAFolderNotSearched) {
  file("/srv/nccl-2.23.4/lib/libnccl.so.2.23.4");
  link("/usr/lib/x86_64-linux-gnu/libnccl.so.2", "/srv/nccl-2.23.4/lib/libnccl.so.2.23.4");
  EXPECT_EQ(find(), std::vector<InstalledNccl>{library("2.23.4", "/srv/nccl-2.23.4/lib/libnccl.so.2.23.4")});
}

TEST_F(NcclInstallTest, LinksLeavingTheRootFindNothingOutsideIt) {
  std::string out = outside();
  std::ofstream(out + "/libnccl.so.2.19.3") << "ELF";
  std::ofstream(out + "/nccl.h") << nccl_header(2, 19, 3, 21903);
  link("/usr/lib/x86_64-linux-gnu/libnccl.so.2", out + "/libnccl.so.2.19.3");
  link("/usr/lib64/libnccl.so.2", "../../../../../../../../.." + out + "/libnccl.so.2.19.3");
  link("/usr/local/lib/libnccl.so.2.18.1", out + "/libnccl.so.2.19.3");
  link("/usr/include/nccl.h", out + "/nccl.h");
  link("/opt/nccl-outside", out);
  EXPECT_TRUE(find().empty());
}

TEST_F(NcclInstallTest, DanglingAndOddlyNamedLibrariesAreSkipped) {
  std::string lib = "/usr/lib/x86_64-linux-gnu";
  link(lib + "/libnccl.so.2.20.5", "libnccl.so.2.20.5.real");  // the file is gone
  link(lib + "/libnccl.so.2", "libnccl.so.2.17.1");            // so is this one
  for (const char* name :
       {"libnccl.so.2.21", "libnccl.so.2.21.5.bak", "libnccl.so.2.x.5", "libnccl.so.2..5", "libnccl.so.2.21.5-1",
        "libnccl.so.", "libnccl.so.2.21.5\nlibnccl.so.2.22.3", "libnccl.so.1234567.1.1", "libnccl-net.so"})
    file(lib + "/" + name);
  folder(lib + "/libnccl.so.2.22.3");  // a folder, not a library
  EXPECT_TRUE(find().empty());
}

TEST_F(NcclInstallTest, UnknownReleaseIsKeptAsFound) {
  file("/usr/lib/libnccl.so.2.99.99");
  file("/usr/local/lib/libnccl.so.3.0.1");
  EXPECT_EQ(find(), (std::vector<InstalledNccl>{library("2.99.99", "/usr/lib/libnccl.so.2.99.99"),
                                                library("3.0.1", "/usr/local/lib/libnccl.so.3.0.1")}));
}

TEST_F(NcclInstallTest, WheelVersionsFromNamesAndMetadata) {
  std::string site = "/usr/local/lib/python3.12/dist-packages";
  folder(site + "/nvidia_nccl_cu11-2.14.3.dist-info");
  folder(site + "/nvidia_nccl_cu12-2.26.2.post1.dist-info");  // a post release: same NCCL
  file(site + "/nvidia_nccl_cu13-weird.dist-info/METADATA",
       "Metadata-Version: 2.1\r\nName: nvidia-nccl-cu13\r\n"
       "Version: 2.28.3\r\n\r\nVersion: 9.9.9\r\n");
  file(site + "/nvidia_nccl_cu12-2.x.dist-info/METADATA", "Name: x\n\nVersion: 2.21.5\n");  // Version in the body
  folder(site + "/nvidia_nccl_cu12-2.21.5rc1.dist-info");
  folder(site + "/nvidia_nccl_cu12-99999999.1.1.dist-info");
  folder(site + "/nvidia_nccl_cu1234-2.21.5.dist-info");
  folder(site + "/nvidia_nccl_cu-2.21.5.dist-info");
  folder(site + "/nvidia_nccl_cu12.dist-info");
  folder(site + "/nvidia_nccl_cu12-2.21.5.egg-info");
  folder(site + "/nvidia_cublas_cu12-12.4.5.8.dist-info");
  file(site + "/nvidia_nccl_cu12-2.22.3.dist-info");  // a file, not a dist-info folder
  auto found = find();
  EXPECT_EQ(found, (std::vector<InstalledNccl>{wheel("2.14.3", site + "/nvidia_nccl_cu11-2.14.3.dist-info"),
                                               wheel("2.26.2", site + "/nvidia_nccl_cu12-2.26.2.post1.dist-info"),
                                               wheel("2.28.3", site + "/nvidia_nccl_cu13-weird.dist-info")}));
}

TEST(ParseNcclHeader, VersionBlockAsNcclWritesIt) {
  EXPECT_EQ(parse_nccl_header(nccl_header(2, 21, 5, 22105)), nccl_version("2.21.5"));
  EXPECT_EQ(parse_nccl_header(nccl_header(2, 8, 4, 2804)), nccl_version("2.8.4"));  // the old code scheme
  EXPECT_EQ(parse_nccl_header(nccl_header(2, 30, 7, 23007)), nccl_version("2.30.7"));
}

TEST(ParseNcclHeader, EitherPartMayStandAlone) {
  EXPECT_EQ(parse_nccl_header("#define NCCL_VERSION_CODE 21903\n"), nccl_version("2.19.3"));
  EXPECT_EQ(parse_nccl_header("#define NCCL_VERSION_CODE 2708\n"), nccl_version("2.7.8"));
  EXPECT_EQ(parse_nccl_header("#define NCCL_MAJOR 2\n#define NCCL_MINOR 18\n#define NCCL_PATCH 6\n"),
            nccl_version("2.18.6"));
  EXPECT_EQ(parse_nccl_header("  #  define\tNCCL_MAJOR\t2 // major\r\n#define NCCL_MINOR 4 /* minor */\n"
                              "#define NCCL_PATCH 8"),
            nccl_version("2.4.8"));
}

TEST(ParseNcclHeader, GarbageGivesNothing) {
  EXPECT_FALSE(parse_nccl_header(""));
  EXPECT_FALSE(
      parse_nccl_header(std::string("\x7f"
                                    "ELF\0\0\xff\xfe#define NCCL_MAJOR",
                                    22)));
  EXPECT_FALSE(parse_nccl_header("#define NCCL_MAJOR two\n#define NCCL_MINOR 21\n#define NCCL_PATCH 5\n"));
  EXPECT_FALSE(parse_nccl_header("#define NCCL_MAJOR 2\n#define NCCL_MINOR 21\n"));  // no patch, no code
  EXPECT_FALSE(
      parse_nccl_header("#define NCCL_MAJOR 2\n#define NCCL_MINOR 21\n#define NCCL_PATCH 5\n"
                        "#define NCCL_VERSION_CODE 21903\n"));          // the two disagree
  EXPECT_FALSE(parse_nccl_header("#define NCCL_VERSION_CODE 2904\n"));  // no release encodes to it
  EXPECT_FALSE(parse_nccl_header("#define NCCL_MAJOR 9999999\n#define NCCL_MINOR 1\n#define NCCL_PATCH 1\n"));
  EXPECT_FALSE(parse_nccl_header("#define NCCL_MAJOR 2 + 1\n#define NCCL_MINOR 1\n#define NCCL_PATCH 1\n"));
  EXPECT_FALSE(parse_nccl_header("#defineNCCL_MAJOR 2\n#define NCCL_MINOR 1\n#define NCCL_PATCH 1\n"));
  EXPECT_FALSE(parse_nccl_header("// #define NCCL_VERSION_CODE 22105\n"));
  EXPECT_FALSE(parse_nccl_header(std::string(1 << 20, '#')));
}

TEST_F(NcclInstallTest, GarbageHeadersAndAHeaderFolderAreSkipped) {
  file("/usr/include/nccl.h", std::string("\x7f"
                                          "ELF\x02\x01\x01\0\0\0",
                                          10) +
                                  std::string(300000, '\xff'));
  file("/usr/local/include/nccl.h", "#define NCCL_MAJOR two\n");
  file("/opt/conda/include/nccl.h", nccl_header(2, 21, 5, 21903));
  folder("/usr/local/cuda/include/nccl.h");
  EXPECT_TRUE(find().empty());
}

TEST_F(NcclInstallTest, ManyLibrariesInOneFolderAreBounded) {
  for (int minor = 0; minor < 60; ++minor)
    for (int patch = 0; patch < 50; ++patch)
      file("/usr/lib/libnccl.so.2." + std::to_string(minor) + "." + std::to_string(patch), "");
  file("/usr/local/lib/libnccl.so.2.21.5");
  auto found = find();
  ASSERT_FALSE(found.empty());
  EXPECT_LE(found.size(), 33u);  // at most 32 from the crowded folder, and the other one
  EXPECT_EQ(found.back(), library("2.21.5", "/usr/local/lib/libnccl.so.2.21.5"));
}

TEST_F(NcclInstallTest, ManyDanglingCandidatesCostABoundedNumberOfChecks) {
  // Names that look like NCCL but lead nowhere are checked up to a limit;
  // a real library listed after hundreds of them is not reached.
  for (int i = 100; i < 400; ++i) link("/usr/lib/libnccl.so.2.0." + std::to_string(i), "gone");
  file("/usr/lib/libnccl.so.2.9.9");
  folder("/usr/lib/python3/dist-packages");
  for (int i = 100; i < 400; ++i)
    folder("/usr/lib/python3/dist-packages/nvidia_nccl_cu12-bad" + std::to_string(i) + ".dist-info");
  folder("/usr/lib/python3/dist-packages/nvidia_nccl_cu12-zz.dist-info");
  EXPECT_TRUE(find().empty());
}

TEST_F(NcclInstallTest, FifosWhereFilesShouldBeDoNotBlock) {
  fifo("/usr/include/nccl.h");
  fifo("/usr/local/lib/python3.10/dist-packages/nvidia_nccl_cu12-odd.dist-info/METADATA");
  file("/usr/local/include/nccl.h", nccl_header(2, 23, 4, 22304));
  auto found = find_within_seconds(Root(dir_), 10);
  ASSERT_TRUE(found.has_value()) << "the search blocked on a FIFO";
  EXPECT_EQ(*found, std::vector<InstalledNccl>{header("2.23.4", "/usr/local/include/nccl.h")});
}

TEST_F(NcclInstallTest, UnreadableFilesAreSkipped) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads every file; the denied path needs an ordinary user";
  file("/usr/include/nccl.h", nccl_header(2, 21, 5, 22105));
  ::chmod((dir_ + "/usr/include/nccl.h").c_str(), 0);
  std::string dist_info = "/usr/lib/python3/dist-packages/nvidia_nccl_cu12-odd.dist-info";
  file(dist_info + "/METADATA", "Version: 2.21.5\n");
  ::chmod((dir_ + dist_info + "/METADATA").c_str(), 0);
  file("/usr/lib/libnccl.so.2.21.5");  // named, so found without reading
  ::chmod((dir_ + "/usr/lib/libnccl.so.2.21.5").c_str(), 0);
  EXPECT_EQ(find(), std::vector<InstalledNccl>{library("2.21.5", "/usr/lib/libnccl.so.2.21.5")});
}

TEST_F(NcclInstallTest, NothingInstalledOrNoRoot) {
  folder("/usr/lib/x86_64-linux-gnu");
  file("/usr/lib/x86_64-linux-gnu/libc.so.6");
  EXPECT_TRUE(find().empty());
  EXPECT_TRUE(find_installed_nccl(Root(dir_ + "/no-such-root")).empty());
  EXPECT_TRUE(installed_nccl_versions({}).empty());
}

TEST(NcclInstallKindName, Names) {
  EXPECT_STREQ(nccl_install_kind_name(NcclInstallKind::Library), "library");
  EXPECT_STREQ(nccl_install_kind_name(NcclInstallKind::Header), "header");
  EXPECT_STREQ(nccl_install_kind_name(NcclInstallKind::Wheel), "wheel");
  EXPECT_STREQ(nccl_install_kind_name(NcclInstallKind::Conda), "conda");
}

}  // namespace
}  // namespace gdrcheck
