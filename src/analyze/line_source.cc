#include "analyze/line_source.h"

#include <algorithm>

#include "host/user_file.h"
#include "topology/input_error.h"

namespace gdrcheck {
namespace {

// A compressed log is read to at most this many bytes: far above the
// largest NCCL log of a real job, and a bound on the time a decompression
// bomb costs.
constexpr std::uint64_t kMaxDecompressed = std::uint64_t{16} << 30;

// Text has few control bytes besides tab, newlines, form feed and ESC
// (colour in logs); an executable, an image or a core file has many.
bool text_like(std::string_view head) {
  std::size_t control = 0;
  for (unsigned char c : head)
    control += (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != 0x1b) || c == 0x7f;
  return control * 20 <= head.size();  // at most 5%
}

}  // namespace

LineSource::LineSource(const std::string& path) {
  try {
    fd_ = open_user_input(path, "log or tool output");
    reader_ = std::make_unique<DecompressingReader>(fd_.get(), path, kMaxDecompressed);
  } catch (const InputError& e) {
    refusal_ = e.problem();
  }
}

LineSource::~LineSource() = default;

Compression LineSource::compression() const {
  return reader_ ? reader_->compression() : Compression::None;
}

const std::string& LineSource::head() {
  if (!head_read_) {
    fill(kHeadBytes);
    head_.assign(buf_.get(), std::min(end_, kHeadBytes));
    binary_ = (head_.empty() && nul_bytes_ > 0) || !text_like(head_);
    head_read_ = true;
  }
  return head_;
}

std::string LineSource::whole() {
  head();
  std::string text(buf_.get(), end_);
  while (!eof_ && text.size() < kMaxWholeFile) {
    end_ = 0;
    fill(kBlockBytes);
    text.append(buf_.get(), end_);
  }
  end_ = 0;
  if (text.size() > kMaxWholeFile) text.resize(kMaxWholeFile);
  return text;
}

void LineSource::drop_nuls(std::size_t from) {
  char* begin = buf_.get() + from;
  char* end = buf_.get() + end_;
  if (!std::memchr(begin, '\0', static_cast<std::size_t>(end - begin))) return;  // the usual case: nothing to move
  char* kept = std::remove(begin, end, '\0');
  nul_bytes_ += static_cast<std::uint64_t>(end - kept);
  end_ = static_cast<std::size_t>(kept - buf_.get());
}

void LineSource::fill(std::size_t want) {
  if (!buf_) buf_ = std::make_unique_for_overwrite<char[]>(kBlockBytes);
  want = std::min(want, kBlockBytes);
  while (!eof_ && end_ < want) {
    std::size_t n = 0;
    try {
      n = reader_->read(buf_.get() + end_, kBlockBytes - end_);
    } catch (const InputError& e) {
      failure_ = e.problem();
    }
    if (n == 0) {
      eof_ = true;
      break;
    }
    std::size_t from = end_;
    end_ += n;
    raw_bytes_ += n;
    drop_nuls(from);
    // A file of zeros would otherwise be read to its end for a head.
    if (!head_read_ && end_ == 0 && raw_bytes_ >= 4 * kBlockBytes) break;
  }
}

}  // namespace gdrcheck
