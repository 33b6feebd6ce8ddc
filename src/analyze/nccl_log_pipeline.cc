#include "analyze/nccl_log_pipeline.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace gdrcheck {
namespace {

struct Batch {
  std::unique_ptr<char[]> text;
  std::size_t used = 0, capacity = 0;
  std::vector<std::string_view> raw;  // the lines copied in, before lexing
  std::vector<NcclLexedLine> lines;

  explicit Batch(std::size_t bytes) : text(std::make_unique_for_overwrite<char[]>(bytes)), capacity(bytes) {}
  bool has_room_for(std::string_view line) const { return capacity - used >= line.size(); }
  void append(std::string_view line) {
    char* copy = text.get() + used;
    if (!line.empty()) std::memcpy(copy, line.data(), line.size());
    used += line.size();
    raw.emplace_back(copy, line.size());
  }
  void clear() {
    used = 0;
    raw.clear();
    lines.clear();
  }
};

// One direction of the hand-off. pop() waits for a batch; once closed it
// returns what is left, then nullptr.
class BatchQueue {
 public:
  void push(std::unique_ptr<Batch> batch) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(std::move(batch));
    }
    ready_.notify_one();
  }
  std::unique_ptr<Batch> pop() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return !queue_.empty() || closed_; });
    if (queue_.empty()) return nullptr;
    auto batch = std::move(queue_.front());
    queue_.pop_front();
    return batch;
  }
  void close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::unique_ptr<Batch>> queue_;
  bool closed_ = false;
};

// Thrown inside the reading thread when the caller has stopped taking lines.
struct CallerStopped {};

// The reading thread: fills batches with lines, lexes each batch whole
// (the lexer looks ahead) and hands it on.
void read_and_lex(LineSource& src, BatchQueue& empty, BatchQueue& full) {
  NcclLineLexer lexer;
  auto batch = empty.pop();
  if (!batch) return;
  auto hand_on = [&] {
    lexer.lex_all(batch->raw, batch->lines);
    full.push(std::move(batch));
  };
  src.each_line([&](std::string_view line) {
    if (!batch->has_room_for(line)) {
      hand_on();
      batch = empty.pop();
      if (!batch) throw CallerStopped{};
      batch->clear();
    }
    batch->append(line);
  });
  hand_on();
}

// The same batches, made and handed on in turn on the calling thread: when
// no second thread may be started (a process or thread limit) or one is
// not wanted.
void read_and_lex_here(LineSource& src, const OnBatch& on_batch, std::size_t bytes) {
  NcclLineLexer lexer;
  Batch batch(bytes);
  auto hand_on = [&] {
    lexer.lex_all(batch.raw, batch.lines);
    on_batch(batch.lines);
    batch.clear();
  };
  src.each_line([&](std::string_view line) {
    if (!batch.has_room_for(line)) hand_on();
    batch.append(line);
  });
  hand_on();
}

}  // namespace

void for_each_lexed_nccl_batch(LineSource& src, const OnBatch& on_batch, NcclPipelineOptions options) {
  std::size_t bytes = std::max(options.batch_bytes, kMaxLine);
  if (!options.second_thread) return read_and_lex_here(src, on_batch, bytes);
  BatchQueue empty, full;
  for (std::size_t i = 0; i < std::max<std::size_t>(options.batches, 2); ++i)
    empty.push(std::make_unique<Batch>(bytes));
  std::exception_ptr reader_failure;
  std::thread reader;
  try {
    reader = std::thread([&] {
      try {
        read_and_lex(src, empty, full);
      } catch (const CallerStopped&) {
      } catch (...) {
        reader_failure = std::current_exception();
      }
      full.close();
    });
  } catch (const std::system_error&) {
    return read_and_lex_here(src, on_batch, bytes);  // no thread to be had: one is enough
  }
  try {
    while (auto batch = full.pop()) {
      on_batch(batch->lines);
      batch->clear();
      empty.push(std::move(batch));
    }
  } catch (...) {
    empty.close();
    reader.join();
    throw;
  }
  reader.join();
  if (reader_failure) std::rethrow_exception(reader_failure);
}

}  // namespace gdrcheck
