#include "host/compressed_input.h"

#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "topology/input_error.h"

namespace gdrcheck {

const char* compression_name(Compression c) {
  switch (c) {
    case Compression::None:
      return "none";
    case Compression::Gzip:
      return "gzip";
    case Compression::Zstd:
      return "zstd";
  }
  return "none";
}

Compression compression_of(const unsigned char* head, std::size_t size) {
  if (size >= 2 && head[0] == 0x1f && head[1] == 0x8b) return Compression::Gzip;
  if (size >= 4 && head[0] == 0x28 && head[1] == 0xb5 && head[2] == 0x2f && head[3] == 0xfd) return Compression::Zstd;
  return Compression::None;
}

namespace {

constexpr std::size_t kInputBlock = 256 * 1024;

}  // namespace

// One compressed format: consumes input, produces output, and says whether
// the input so far ends on a whole stream (so the end of the file is a
// clean end, not a cut).
class DecompressingReader::Decoder {
 public:
  virtual ~Decoder() = default;
  // Decodes from [*in, in_end) into [out, out + size); advances *in and
  // returns the bytes written. Throws std::runtime_error with the problem.
  virtual std::size_t decode(const unsigned char** in, const unsigned char* in_end, char* out, std::size_t size) = 0;
  virtual bool at_stream_end() const = 0;
};

namespace {

class GzipDecoder : public DecompressingReader::Decoder {
 public:
  GzipDecoder() {
    // 15 + 16: gzip framing only (the magic bytes said gzip).
    if (inflateInit2(&z_, 15 + 16) != Z_OK) throw std::runtime_error("zlib could not start");
  }
  ~GzipDecoder() override { inflateEnd(&z_); }

  std::size_t decode(const unsigned char** in, const unsigned char* in_end, char* out, std::size_t size) override {
    // A member ended and more input follows: gzip files may hold several
    // members back to back (`cat a.gz b.gz`), read as one.
    if (ended_ && *in < in_end) {
      inflateReset(&z_);
      ended_ = false;
    }
    z_.next_in = const_cast<Bytef*>(*in);
    z_.avail_in = static_cast<uInt>(std::min<std::size_t>(in_end - *in, UINT32_MAX));
    z_.next_out = reinterpret_cast<Bytef*>(out);
    z_.avail_out = static_cast<uInt>(std::min<std::size_t>(size, UINT32_MAX));
    int rc = inflate(&z_, Z_NO_FLUSH);
    *in = z_.next_in;
    if (rc == Z_STREAM_END)
      ended_ = true;
    else if (rc != Z_OK && rc != Z_BUF_ERROR)
      throw std::runtime_error(std::string("corrupt gzip stream (") + (z_.msg ? z_.msg : "zlib error") + ")");
    return static_cast<std::size_t>(reinterpret_cast<char*>(z_.next_out) - out);
  }
  bool at_stream_end() const override { return ended_; }

 private:
  z_stream z_{};
  bool ended_ = false;
};

class ZstdDecoder : public DecompressingReader::Decoder {
 public:
  ZstdDecoder() : ctx_(ZSTD_createDCtx()) {
    if (!ctx_) throw std::runtime_error("zstd could not start");
  }
  ~ZstdDecoder() override { ZSTD_freeDCtx(ctx_); }

  std::size_t decode(const unsigned char** in, const unsigned char* in_end, char* out, std::size_t size) override {
    ZSTD_inBuffer input{*in, static_cast<std::size_t>(in_end - *in), 0};
    ZSTD_outBuffer output{out, size, 0};
    // The default window limit (128 MiB) holds: a frame asking for more
    // memory is refused by the library as an error below.
    std::size_t rc = ZSTD_decompressStream(ctx_, &output, &input);
    if (ZSTD_isError(rc)) throw std::runtime_error(std::string("corrupt zstd stream (") + ZSTD_getErrorName(rc) + ")");
    *in += input.pos;
    // 0: a frame is complete and flushed; frames may follow one another.
    ended_ = rc == 0;
    return output.pos;
  }
  bool at_stream_end() const override { return ended_; }

 private:
  ZSTD_DCtx* ctx_;
  bool ended_ = false;
};

}  // namespace

DecompressingReader::DecompressingReader(int fd, std::string name, std::uint64_t max_output)
    : fd_(fd), name_(std::move(name)), max_output_(max_output), in_(kInputBlock) {}

DecompressingReader::~DecompressingReader() = default;

bool DecompressingReader::fill_input() {
  if (in_start_ == in_end_) in_start_ = in_end_ = 0;
  while (!input_ended_ && in_end_ < in_.size()) {
    ssize_t n = ::read(fd_, in_.data() + in_end_, in_.size() - in_end_);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(name_, std::string("read error (") + std::strerror(errno) + ")");
    if (n == 0) {
      input_ended_ = true;
      break;
    }
    in_end_ += static_cast<std::size_t>(n);
    return true;
  }
  return in_end_ > in_start_;
}

// Reads until the magic bytes can be told (4 bytes) or the input ends.
void DecompressingReader::sniff() {
  sniffed_ = true;
  while (!input_ended_ && in_end_ < 4) fill_input();
  compression_ = compression_of(in_.data(), in_end_);
  if (compression_ == Compression::Gzip) decoder_ = std::make_unique<GzipDecoder>();
  if (compression_ == Compression::Zstd) decoder_ = std::make_unique<ZstdDecoder>();
}

std::size_t DecompressingReader::read_plain(char* out, std::size_t size) {
  if (in_start_ == in_end_) {
    if (input_ended_) return 0;
    // Large reads go straight to the caller's buffer: no copy for plain logs.
    while (true) {
      ssize_t n = ::read(fd_, out, size);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw InputError(name_, std::string("read error (") + std::strerror(errno) + ")");
      if (n == 0) input_ended_ = true;
      return static_cast<std::size_t>(n);
    }
  }
  std::size_t n = std::min(size, in_end_ - in_start_);
  std::memcpy(out, in_.data() + in_start_, n);
  in_start_ += n;
  return n;
}

std::size_t DecompressingReader::read_decoded(char* out, std::size_t size) {
  // Never more than one byte past the cap is produced, so a bomb costs no
  // more than the cap in time.
  size = static_cast<std::size_t>(std::min<std::uint64_t>(size, max_output_ + 1 - produced_));
  while (true) {
    if (in_start_ == in_end_ && !fill_input()) {
      if (!decoder_->at_stream_end())
        throw InputError(
            name_, std::string("the ") + compression_name(compression_) + " stream ends early (truncated or cut off)");
      return 0;
    }
    const unsigned char* in = in_.data() + in_start_;
    std::size_t n = 0;
    try {
      n = decoder_->decode(&in, in_.data() + in_end_, out, size);
    } catch (const std::runtime_error& e) {
      throw InputError(name_, e.what());
    }
    in_start_ = static_cast<std::size_t>(in - in_.data());
    produced_ += n;
    if (produced_ > max_output_)
      throw InputError(name_, std::string("decompresses to more than ") + std::to_string(max_output_ >> 20) +
                                  " MiB, the limit; stopped there (a decompression bomb?)");
    if (n > 0) return n;
  }
}

std::size_t DecompressingReader::read(char* out, std::size_t size) {
  if (!sniffed_) sniff();
  if (size == 0) return 0;
  return decoder_ ? read_decoded(out, size) : read_plain(out, size);
}

}  // namespace gdrcheck
