// One input of `gdrcheck analyze`, read as lines: a file (or standard
// input), decompressed when its first bytes say so (host/compressed_input.h),
// streamed in large blocks so multi-GB logs cost one buffer, not their size.
//
// The file is read with read(2) in blocks of kBlockBytes, lines are found
// with memchr in place and handed on as views into the block. Only the tail
// of a block (the start of a line the next block ends) is moved to the
// front before the next read; a line longer than kMaxLine keeps its first
// kMaxLine bytes.
//
// NUL bytes are taken out as they are read and counted: a log a crash cut
// short is often padded with NULs, and a copy through some tools leaves a
// few inside lines; neither makes the rest unreadable. What is left of the
// head decides whether the input is text: nothing at all (a file of
// zeros), or more than 5% other control bytes (an executable, an image, a
// core file) is binary, not a log.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "host/compressed_input.h"
#include "host/unique_fd.h"

namespace gdrcheck {

inline constexpr std::size_t kHeadBytes = 64 * 1024;
inline constexpr std::size_t kMaxLine = 64 * 1024;       // longer lines are cut: no log line is near this
inline constexpr std::size_t kBlockBytes = 1u << 20;     // one read(2): a MB keeps system calls rare
inline constexpr std::size_t kMaxWholeFile = 16u << 20;  // matrix, ibv and gdscheck text is small

class LineSource {
 public:
  explicit LineSource(const std::string& path);
  ~LineSource();

  bool ok() const { return reader_ != nullptr; }
  // Why the file was not opened: "a character device, not a log or tool output".
  const std::string& refusal() const { return refusal_; }
  // Why reading stopped before the end ("corrupt gzip stream (…)"); empty
  // when the whole content was read.
  const std::string& failure() const { return failure_; }
  Compression compression() const;
  // The first kHeadBytes (without NULs), read before any line is consumed.
  const std::string& head();
  // Not text (see above).
  bool looks_binary() {
    head();
    return binary_;
  }
  // NUL bytes taken out of what was read so far.
  std::uint64_t nul_bytes() const { return nul_bytes_; }

  template <class F>
  void each_line(F&& f) {
    each_line(f, [] {});
  }
  // The same; `before_reuse` is called before the bytes of lines already
  // handed out are moved or overwritten, so a caller can keep the views
  // until then and copy many lines at once.
  template <class F, class G>
  void each_line(F&& f, G&& before_reuse) {
    head();
    std::size_t start = 0;
    bool cut = false;  // inside a line longer than kMaxLine, its start kept in long_line
    std::string long_line;
    while (true) {
      const char* data = buf_.get();
      while (const void* hit = std::memchr(data + start, '\n', end_ - start)) {
        std::size_t nl = static_cast<std::size_t>(static_cast<const char*>(hit) - data);
        if (cut) {
          f(std::string_view(long_line));
          cut = false;
        } else {
          std::string_view line(data + start, nl - start);
          if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
          f(line.substr(0, kMaxLine));
        }
        start = nl + 1;
      }
      before_reuse();  // the cut line's copy and the block change below
      if (!cut && end_ - start >= kMaxLine) {
        long_line.assign(data + start, kMaxLine);
        cut = true;
      }
      if (cut) start = end_;
      if (eof_) break;
      std::memmove(buf_.get(), data + start, end_ - start);
      end_ -= start;
      start = 0;
      fill(kBlockBytes);
    }
    if (cut)
      f(std::string_view(long_line));
    else if (end_ > start)
      f(std::string_view(buf_.get() + start, std::min(end_ - start, kMaxLine)));
    before_reuse();  // long_line ends here
  }

  // The whole content (at most kMaxWholeFile), for the small outputs.
  std::string whole();

 private:
  // Reads until the buffer holds `want` bytes (at most kBlockBytes), or
  // the input ends; a read error or a bad compressed stream ends it too,
  // and is kept in failure_.
  void fill(std::size_t want);
  // Takes the NULs out of buf_[from, end_), counting them.
  void drop_nuls(std::size_t from);

  std::string refusal_;
  std::string failure_;
  UniqueFd fd_;
  std::unique_ptr<DecompressingReader> reader_;
  std::unique_ptr<char[]> buf_;
  std::size_t end_ = 0;  // bytes in buf_
  bool eof_ = false;
  std::string head_;
  bool head_read_ = false;
  bool binary_ = false;
  std::uint64_t nul_bytes_ = 0;
  std::uint64_t raw_bytes_ = 0;  // read so far, NULs included
};

}  // namespace gdrcheck
