// Logs arrive compressed as often as not (`job-1234.log.gz` from a
// scheduler, `.zst` from log rotation). The compression is told by the
// first bytes, never by the name: a renamed file, a pipe and standard
// input are read alike. A few KB of zstd can stand for terabytes of
// zeros, so the decompressed size has a cap the caller sets, and a
// stream that is corrupt or cut short is an error, not a shorter log.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gdrcheck {

enum class Compression { None, Gzip, Zstd };
const char* compression_name(Compression c);  // "none", "gzip", "zstd"

// The compression the first bytes announce (gzip 1f 8b, zstd 28 b5 2f fd).
Compression compression_of(const unsigned char* head, std::size_t size);

// Reads the content of a descriptor it does not own, decompressed when its
// first bytes say so.
class DecompressingReader {
 public:
  // `name` is for messages; more than `max_output` decompressed bytes is
  // an error (uncompressed input has no cap here).
  DecompressingReader(int fd, std::string name, std::uint64_t max_output);
  ~DecompressingReader();
  DecompressingReader(const DecompressingReader&) = delete;
  DecompressingReader& operator=(const DecompressingReader&) = delete;

  // Up to `size` bytes of content; 0 at its end. Throws InputError(name, …)
  // on a read error, a corrupt or truncated stream, or output past the cap.
  std::size_t read(char* out, std::size_t size);
  // Known after the first read().
  Compression compression() const { return compression_; }

  class Decoder;  // one compressed format (compressed_input.cc)

 private:
  bool fill_input();  // false at the end of the descriptor
  void sniff();
  std::size_t read_plain(char* out, std::size_t size);
  std::size_t read_decoded(char* out, std::size_t size);

  int fd_;
  std::string name_;
  std::uint64_t max_output_;
  std::uint64_t produced_ = 0;
  bool sniffed_ = false;
  bool input_ended_ = false;
  Compression compression_ = Compression::None;
  std::vector<unsigned char> in_;
  std::size_t in_start_ = 0, in_end_ = 0;  // unread input is in_[in_start_, in_end_)
  std::unique_ptr<Decoder> decoder_;
};

}  // namespace gdrcheck
