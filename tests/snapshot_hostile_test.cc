// Snapshot tarballs are hostile input: every one here is built by the test
// with libarchive and must be refused with a message naming the tarball,
// or unpacked with the dangerous entry left out — never written outside
// the private directory, which is gone afterwards.
#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "snapshot/snapshot_root.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

namespace fs = std::filesystem;

struct Entry {
  std::string path;
  unsigned type = AE_IFREG;
  std::string data;       // file bytes, or the link target
  std::string hardlink;   // set: a hard link to this path
  std::size_t zeros = 0;  // a file of this many zero bytes instead of data
};

void write_tar(const std::string& file, const std::vector<Entry>& entries, std::size_t count_copies = 1) {
  archive* a = archive_write_new();
  archive_write_add_filter_gzip(a);
  archive_write_set_format_pax_restricted(a);
  ASSERT_EQ(archive_write_open_filename(a, file.c_str()), ARCHIVE_OK);
  std::string zeros(1 << 20, '\0');
  for (std::size_t copy = 0; copy < count_copies; ++copy)
    for (const auto& e : entries) {
      archive_entry* x = archive_entry_new();
      archive_entry_set_pathname(x, (count_copies > 1 ? e.path + std::to_string(copy) : e.path).c_str());
      archive_entry_set_filetype(x, e.type);
      archive_entry_set_perm(x, 0644);
      if (!e.hardlink.empty()) archive_entry_set_hardlink(x, e.hardlink.c_str());
      if (e.type == AE_IFLNK) archive_entry_set_symlink(x, e.data.c_str());
      std::size_t size = e.type == AE_IFREG && e.hardlink.empty() ? (e.zeros ? e.zeros : e.data.size()) : 0;
      archive_entry_set_size(x, static_cast<la_int64_t>(size));
      archive_write_header(a, x);
      if (e.zeros)
        for (std::size_t done = 0; done < e.zeros; done += zeros.size())
          archive_write_data(a, zeros.data(), std::min(zeros.size(), e.zeros - done));
      else if (size)
        archive_write_data(a, e.data.data(), e.data.size());
      archive_entry_free(x);
    }
  archive_write_close(a);
  archive_write_free(a);
}

class HostileTarball : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "snapshot-hostile-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    top_ = tmpl;
    base_ = top_ + "/base";
    fs::create_directory(base_);
    std::ofstream(top_ + "/canary") << "untouched";
    tarball_ = top_ + "/node.tar.gz";
  }
  void TearDown() override { fs::remove_all(top_); }

  // The problem the tarball is refused with; "" when it was accepted.
  std::string refusal(const ExtractLimits& limits = {}) {
    try {
      ExtractedRoot root(tarball_, limits, base_);
      accepted_files_ = 0;
      for (auto it = fs::recursive_directory_iterator(root.dir()); it != fs::recursive_directory_iterator(); ++it)
        ++accepted_files_;
      notes_ = root.result().notes;
      return "";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), tarball_);
      return e.problem();
    }
  }

  // Nothing outside the private directory changed, and it is gone.
  void expect_clean() {
    std::ifstream in(top_ + "/canary");
    std::string text;
    std::getline(in, text);
    EXPECT_EQ(text, "untouched");
    EXPECT_TRUE(fs::is_empty(base_)) << "the private directory was left behind";
    EXPECT_EQ(std::distance(fs::directory_iterator(top_), fs::directory_iterator()), 3);
  }

  std::string top_, base_, tarball_;
  std::size_t accepted_files_ = 0;
  std::vector<std::string> notes_;
};

const Entry kSys{"sys/", AE_IFDIR, "", "", 0};

TEST_F(HostileTarball, GoodTarballIsUnpackedAndRemovedAfterwards) {
  write_tar(tarball_, {kSys, {"sys/a", AE_IFREG, "1\n", "", 0}, {"proc/cmdline", AE_IFREG, "quiet\n", "", 0}});
  std::string dir;
  {
    ExtractedRoot root(tarball_, {}, base_);
    dir = root.dir();
    EXPECT_EQ(fs::status(root.temp_dir()).permissions() & fs::perms::all, fs::perms::owner_all);
    std::ifstream in(dir + "/proc/cmdline");
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "quiet");
  }
  EXPECT_FALSE(fs::exists(dir));
  expect_clean();
}

TEST_F(HostileTarball, DotDotEntryIsRefused) {
  write_tar(tarball_, {kSys, {"sys/../../canary", AE_IFREG, "owned", "", 0}});
  EXPECT_NE(refusal().find("climbs out with '..'"), std::string::npos);
  expect_clean();
}

TEST_F(HostileTarball, AbsolutePathIsRefused) {
  write_tar(tarball_, {kSys, {top_ + "/canary", AE_IFREG, "owned", "", 0}});
  EXPECT_NE(refusal().find("is an absolute path"), std::string::npos);
  expect_clean();
}

TEST_F(HostileTarball, LinkToShadowIsRefused) {
  write_tar(tarball_, {kSys, {"sys/shadow", AE_IFLNK, "/etc/shadow", "", 0}});
  EXPECT_NE(refusal().find("an absolute path"), std::string::npos);
  expect_clean();
}

TEST_F(HostileTarball, LinkClimbingOutIsRefused) {
  write_tar(tarball_, {kSys, {"sys/up", AE_IFLNK, "../../../canary", "", 0}});
  EXPECT_NE(refusal().find("climbs out of the snapshot"), std::string::npos);
  expect_clean();
}

TEST_F(HostileTarball, FileThroughALinkIsRefused) {
  write_tar(tarball_, {kSys, {"sys/up", AE_IFLNK, "..", "", 0}, {"sys/up/canary", AE_IFREG, "owned", "", 0}});
  EXPECT_NE(refusal().find("goes through 'up'"), std::string::npos);
  expect_clean();
}

TEST_F(HostileTarball, DevicesFifosAndHardLinksAreSkippedAndNoted) {
  write_tar(tarball_, {kSys,
                       {"sys/a", AE_IFREG, "1", "", 0},
                       {"sys/sda", AE_IFBLK, "", "", 0},
                       {"sys/fifo", AE_IFIFO, "", "", 0},
                       {"sys/hard", AE_IFREG, "", "sys/a", 0}});
  EXPECT_EQ(refusal(), "");
  EXPECT_EQ(accepted_files_, 2u);  // sys/ and sys/a
  ASSERT_EQ(notes_.size(), 3u);
  EXPECT_EQ(notes_[0], "sys/sda: device node; not extracted");
  EXPECT_EQ(notes_[1], "sys/fifo: FIFO; not extracted");
  EXPECT_EQ(notes_[2], "sys/hard: hard link; not extracted");
  expect_clean();
}

TEST_F(HostileTarball, TooManyEntriesAreRefused) {
  write_tar(tarball_, {{"sys/f", AE_IFREG, "", "", 0}}, 100'000);
  ExtractLimits limits;
  limits.max_entries = 50'000;
  EXPECT_NE(refusal(limits).find("more than 50000 entries"), std::string::npos);
  expect_clean();
}

TEST_F(HostileTarball, GzipBombIsStoppedAtTheSizeCap) {
  write_tar(tarball_, {kSys, {"sys/zeros", AE_IFREG, "", "", 16u << 20}});
  EXPECT_LT(fs::file_size(tarball_), 1u << 20);
  ExtractLimits limits;
  limits.max_bytes = 4u << 20;
  EXPECT_NE(refusal(limits).find("unpacks to more than 4 MiB"), std::string::npos);
  expect_clean();
}

TEST_F(HostileTarball, TruncatedGzipIsRefused) {
  write_tar(tarball_, {kSys, {"sys/zeros", AE_IFREG, "", "", 1u << 20}});
  fs::resize_file(tarball_, fs::file_size(tarball_) / 2);
  EXPECT_NE(refusal(), "");
  expect_clean();
}

TEST_F(HostileTarball, NonTarFileIsRefused) {
  std::ofstream(tarball_) << "this is not a tarball\n";
  EXPECT_NE(refusal().find("not a snapshot (tar or compressed tar)"), std::string::npos);
  expect_clean();
}

TEST_F(HostileTarball, TarballWithoutSysIsRefused) {
  write_tar(tarball_, {{"etc/hostname", AE_IFREG, "x\n", "", 0}});
  EXPECT_NE(refusal().find("holds no sys/ directory"), std::string::npos);
  expect_clean();
}

TEST(ResolveRootArgument, DirectoryIsUsedAsItIs) {
  std::optional<ExtractedRoot> holder;
  EXPECT_EQ(resolve_root_argument("/", holder), "/");
  EXPECT_FALSE(holder.has_value());
  EXPECT_EQ(resolve_root_argument("/no/such/dir", holder), "/no/such/dir");
}

TEST(ResolveRootArgument, FifoIsRefused) {
  std::string fifo = (fs::temp_directory_path() / ("snapshot-fifo-" + std::to_string(::getpid()))).string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::optional<ExtractedRoot> holder;
  EXPECT_THROW(resolve_root_argument(fifo, holder), InputError);
  ::unlink(fifo.c_str());
}

}  // namespace
}  // namespace gdrcheck
