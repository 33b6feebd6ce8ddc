// libFuzzer entry point for snapshot tarballs given as --root: any bytes
// (the seeds are real gzip'd tars with links, nested directories and
// hostile entries) unpacked into a fresh private directory (in /dev/shm,
// else /tmp) must end in an ExtractResult within the limits or an
// InputError; nothing may be written outside that directory (a canary
// beside it must stay untouched) and no link may lead out of it.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "snapshot/tarball_extract.h"
#include "topology/input_error.h"

namespace {

namespace fs = std::filesystem;

// Every link under `dir` stays inside it, resolved as the kernel would.
void check_links_stay_inside(const fs::path& dir) {
  const fs::path top = fs::weakly_canonical(dir);
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_symlink(ec)) continue;
    fs::path target = fs::read_symlink(it->path(), ec);
    if (ec || target.is_absolute()) __builtin_trap();
    fs::path resolved = (it->path().parent_path() / target).lexically_normal();
    std::string r = fs::weakly_canonical(resolved, ec).string();
    if (!ec && r.rfind(top.string(), 0) != 0) __builtin_trap();
  }
}

// The private directory of this process, removed when it exits.
std::string g_base;

}  // namespace

// In memory (/dev/shm) where there is one: every input writes, unpacks and
// removes a tree, which costs more on a disk's file system.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  for (std::string dir : {"/dev/shm", "/tmp"}) {
    g_base = dir + "/fuzz-tarball-XXXXXX";
    if (!::mkdtemp(g_base.data())) continue;
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(g_base, ec);
    });
    return 0;
  }
  std::abort();  // nowhere to unpack: the target cannot run
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& base = g_base;
  const std::string tarball = base + "/input.tar", dest = base + "/root", canary = base + "/canary";
  {
    int fd = ::open(tarball.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return 0;
    bool whole = size == 0 || ::write(fd, data, size) == static_cast<ssize_t>(size);
    ::close(fd);
    if (!whole) return 0;
  }
  std::error_code ec;
  fs::remove_all(dest, ec);
  fs::create_directory(dest, ec);
  int canary_fd = ::open(canary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (canary_fd >= 0) ::close(canary_fd);
  int dirfd = ::open(dest.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0) return 0;
  gdrcheck::ExtractLimits small;  // small caps: a bomb is stopped, not followed
  small.max_bytes = 8 << 20;
  small.max_entries = 20'000;
  try {
    gdrcheck::ExtractResult r = gdrcheck::extract_tarball(tarball, dirfd, small);
    if (r.files + r.directories + r.links > small.max_entries) __builtin_trap();
  } catch (const gdrcheck::InputError&) {
  }
  ::close(dirfd);
  // Nothing beside the private directory changed, nothing leads out of it.
  struct stat st {};
  if (::stat(canary.c_str(), &st) != 0 || st.st_size != 0) __builtin_trap();
  for (const auto& entry : fs::directory_iterator(base, ec))
    if (entry.path() != tarball && entry.path() != dest && entry.path() != canary) __builtin_trap();
  check_links_stay_inside(dest);
  fs::remove_all(dest, ec);
  return 0;
}
