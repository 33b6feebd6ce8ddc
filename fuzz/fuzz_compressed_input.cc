// libFuzzer entry point for compressed logs (`analyze job.log.gz`): any
// bytes, read through the decompressing reader from a memory file, must
// end in content within the cap or an InputError; never a crash, a hang or
// more output than the cap. The inputs' first bytes are often a gzip or
// zstd magic (the seed corpus holds real streams), so both decoders are
// reached.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

#include "host/compressed_input.h"
#include "topology/input_error.h"

namespace {

constexpr std::uint64_t kCap = 1 << 20;  // small: a bomb is stopped, not followed

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  int fd = ::memfd_create("fuzz", MFD_CLOEXEC);
  if (fd < 0) return 0;
  if (size > 0 && ::write(fd, data, size) != static_cast<ssize_t>(size)) {
    ::close(fd);
    return 0;
  }
  ::lseek(fd, 0, SEEK_SET);
  try {
    gdrcheck::DecompressingReader reader(fd, "fuzz-input", kCap);
    char buf[65536];
    std::uint64_t total = 0;
    for (std::size_t n; (n = reader.read(buf, sizeof buf)) > 0;) {
      total += n;
      if (total > kCap && reader.compression() != gdrcheck::Compression::None) __builtin_trap();
    }
  } catch (const gdrcheck::InputError&) {
  }
  ::close(fd);
  return 0;
}
