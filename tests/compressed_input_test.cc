// Compressed logs: told by their first bytes, read whole, and refused
// when corrupt, cut short or expanding past the cap. Every input is built
// here with zlib and libzstd.
#include "host/compressed_input.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <string>

#include "topology/input_error.h"

namespace gdrcheck {
namespace {

std::string gzip(const std::string& text) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, text.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string zstd(const std::string& text) {
  std::string out(ZSTD_compressBound(text.size()), '\0');
  std::size_t n = ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 19);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

// The bytes go through a pipe, as from `zcat` or standard input; a writer
// thread is not needed while they fit in the pipe (64 KiB).
struct PipeInput {
  int fds[2] = {-1, -1};
  explicit PipeInput(const std::string& bytes) {
    EXPECT_EQ(::pipe(fds), 0);
    EXPECT_LT(bytes.size(), 65536u);
    EXPECT_EQ(::write(fds[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    ::close(fds[1]);
  }
  ~PipeInput() { ::close(fds[0]); }
};

// Everything the reader yields, in small reads so block edges are crossed.
std::string read_all(const std::string& bytes, std::uint64_t cap = 1 << 30, Compression* seen = nullptr) {
  PipeInput in(bytes);
  DecompressingReader r(in.fds[0], "job.log", cap);
  std::string out;
  char buf[777];
  while (std::size_t n = r.read(buf, sizeof buf)) out.append(buf, n);
  if (seen) *seen = r.compression();
  return out;
}

std::string read_problem(const std::string& bytes, std::uint64_t cap = 1 << 30) {
  try {
    read_all(bytes, cap);
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "job.log");
    return e.problem();
  }
  return "read without error";
}

std::string log_text() {
  std::string s;
  for (int i = 0; i < 2000; ++i)
    s += "host:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA " + std::to_string(i) + "\n";
  return s;
}

TEST(CompressionOf, MagicBytesOnly) {
  const unsigned char gz[] = {0x1f, 0x8b, 0x08, 0x00}, zs[] = {0x28, 0xb5, 0x2f, 0xfd}, text[] = {'N', 'C', 'C', 'L'};
  EXPECT_EQ(compression_of(gz, 4), Compression::Gzip);
  EXPECT_EQ(compression_of(zs, 4), Compression::Zstd);
  EXPECT_EQ(compression_of(zs, 3), Compression::None);  // too short to tell: plain
  EXPECT_EQ(compression_of(text, 4), Compression::None);
  EXPECT_EQ(compression_of(gz, 0), Compression::None);
}

TEST(DecompressingReader, PlainTextPassesThrough) {
  Compression c = Compression::Gzip;
  EXPECT_EQ(read_all("NCCL INFO x\n", 1 << 30, &c), "NCCL INFO x\n");
  EXPECT_EQ(c, Compression::None);
  EXPECT_EQ(read_all(""), "");
  EXPECT_EQ(read_all("\x1f"), "\x1f");  // one byte: not a gzip header
}

TEST(DecompressingReader, GzipAndZstdAreDecompressed) {
  std::string text = log_text();
  Compression c = Compression::None;
  EXPECT_EQ(read_all(gzip(text), 1 << 30, &c), text);
  EXPECT_EQ(c, Compression::Gzip);
  EXPECT_EQ(read_all(zstd(text), 1 << 30, &c), text);
  EXPECT_EQ(c, Compression::Zstd);
}

TEST(DecompressingReader, ConcatenatedMembersAndFramesAreOneContent) {
  EXPECT_EQ(read_all(gzip("first\n") + gzip("second\n")), "first\nsecond\n");
  EXPECT_EQ(read_all(zstd("first\n") + zstd("second\n")), "first\nsecond\n");
}

TEST(DecompressingReader, TruncatedStreamIsAnError) {
  std::string gz = gzip(log_text()), zs = zstd(log_text());
  EXPECT_EQ(read_problem(gz.substr(0, gz.size() / 2)), "the gzip stream ends early (truncated or cut off)");
  EXPECT_EQ(read_problem(zs.substr(0, zs.size() / 2)), "the zstd stream ends early (truncated or cut off)");
  EXPECT_EQ(read_problem(gz.substr(0, 2)), "the gzip stream ends early (truncated or cut off)");
}

TEST(DecompressingReader, CorruptStreamIsAnError) {
  std::string gz = gzip(log_text());
  for (std::size_t i = 20; i < 60; ++i) gz[i] = static_cast<char>(gz[i] ^ 0x5a);
  EXPECT_EQ(read_problem(gz).rfind("corrupt gzip stream", 0), 0u) << read_problem(gz);
  std::string zs = zstd(log_text());
  zs[4] = static_cast<char>(0xff);  // frame header descriptor: reserved bit set
  EXPECT_EQ(read_problem(zs).rfind("corrupt zstd stream", 0), 0u) << read_problem(zs);
  // A gzip trailer whose checksum does not match the content.
  std::string bad_crc = gzip("short text\n");
  bad_crc[bad_crc.size() - 8] = static_cast<char>(bad_crc[bad_crc.size() - 8] ^ 1);
  EXPECT_EQ(read_problem(bad_crc).rfind("corrupt gzip stream", 0), 0u) << read_problem(bad_crc);
}

TEST(DecompressingReader, BombStopsAtTheCap) {
  std::string zeros(8u << 20, 'a');  // 8 MiB of one byte: a few hundred bytes compressed
  std::string gz = gzip(zeros), zs = zstd(zeros);
  ASSERT_LT(gz.size(), 65536u);
  EXPECT_EQ(read_problem(gz, 1u << 20),
            "decompresses to more than 1 MiB, the limit; stopped there (a decompression bomb?)");
  EXPECT_EQ(read_problem(zs, 1u << 20),
            "decompresses to more than 1 MiB, the limit; stopped there (a decompression bomb?)");
  EXPECT_EQ(read_all(gz, 8u << 20).size(), 8u << 20);  // exactly at the cap is whole
}

}  // namespace
}  // namespace gdrcheck
