#include "analyze/nccl_log_pipeline.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "host/usable_cpus.h"

namespace gdrcheck {
namespace {

struct Batch {
  std::unique_ptr<char[]> text;
  std::size_t used = 0, capacity = 0;
  std::vector<std::string_view> raw;  // the lines copied in, before lexing
  std::vector<NcclLexedLine> lines;
  std::vector<NcclConnectionReading> connections;  // read ahead, when asked

  explicit Batch(std::size_t bytes) : text(std::make_unique_for_overwrite<char[]>(bytes)), capacity(bytes) {}
  bool has_room_for(std::size_t bytes) const { return capacity - used >= bytes; }
  // Copies the bytes [from, from + bytes) of the reader's buffer, which the
  // views raw[first_view...] point into, and points those views at the copy.
  void take(const char* from, std::size_t bytes, std::size_t first_view) {
    char* copy = text.get() + used;
    if (bytes) std::memcpy(copy, from, bytes);
    for (std::size_t i = first_view; i < raw.size(); ++i)
      raw[i] = std::string_view(copy + (raw[i].data() - from), raw[i].size());
    used += bytes;
  }
  void clear() {
    used = 0;
    raw.clear();
    lines.clear();
    connections.clear();
  }
  void lex(NcclLineLexer& lexer, bool read_connections) {
    if (read_connections)
      lexer.lex_all(raw, lines, connections);
    else
      lexer.lex_all(raw, lines);
  }
  NcclLexedBatch lexed() const { return {lines, connections}; }
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
  // `waited`: whether there was none to take at once.
  std::unique_ptr<Batch> pop(bool* waited = nullptr) {
    std::unique_lock lock(mutex_);
    if (waited) *waited = queue_.empty() && !closed_;
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

// Lines handed out by LineSource one after another lie back to back in its
// buffer: they are gathered as a run and copied into the batch in one go
// (a copy per line cost more in calls than in bytes) — when the batch is
// full, when a line is not next to the last (a cut line kept elsewhere),
// and before LineSource reuses its buffer.
class RunCollector {
 public:
  // `next` hands the full batch on and returns an empty one to fill.
  RunCollector(Batch& first, std::function<Batch&()> next) : batch_(&first), next_(std::move(next)) {}

  void add(std::string_view line) {
    bool next_to_run = run_start_ && line.data() >= run_end_ && line.data() <= run_end_ + 2;
    std::size_t bytes = static_cast<std::size_t>(line.data() + line.size() - (next_to_run ? run_start_ : line.data()));
    if (!next_to_run || !batch_->has_room_for(bytes)) {
      flush();
      if (!batch_->has_room_for(line.size())) batch_ = &next_();
      run_start_ = line.data();
      first_view_ = batch_->raw.size();
    }
    batch_->raw.push_back(line);
    run_end_ = line.data() + line.size();
  }
  void flush() {
    if (!run_start_) return;
    batch_->take(run_start_, static_cast<std::size_t>(run_end_ - run_start_), first_view_);
    run_start_ = run_end_ = nullptr;
  }
  // Every line of `src`, then the last run.
  void collect(LineSource& src) {
    src.each_line([&](std::string_view line) { add(line); }, [&] { flush(); });
    flush();
  }

 private:
  Batch* batch_;
  std::function<Batch&()> next_;
  const char* run_start_ = nullptr;
  const char* run_end_ = nullptr;
  std::size_t first_view_ = 0;
};

// The reading thread: fills batches with lines, lexes each batch whole
// (the lexer looks ahead) and hands it on. The caller clears the batches
// it gives back. Having had to wait for one means the caller is the slower
// half just now: the next batch then has its connection lines read here.
void read_and_lex(LineSource& src, BatchQueue& empty, BatchQueue& full, const NcclPipelineOptions& options) {
  NcclLineLexer lexer(options.memo == LineMemoUse::Always);
  const ConnectionsReadAhead read_ahead = options.read_ahead;
  std::unique_ptr<Batch> owned = empty.pop();
  if (!owned) return;
  bool caller_behind = false;
  auto hand_on = [&] {
    bool read_connections = read_ahead == ConnectionsReadAhead::Always ||
                            (read_ahead == ConnectionsReadAhead::WhenCallerBehind && caller_behind);
    owned->lex(lexer, read_connections);
    full.push(std::move(owned));
  };
  RunCollector runs(*owned, [&]() -> Batch& {
    hand_on();
    owned = empty.pop(&caller_behind);
    if (!owned) throw CallerStopped{};
    return *owned;
  });
  runs.collect(src);
  hand_on();
}

// The same batches, made and handed on in turn on the calling thread: when
// no second thread may be started (a process or thread limit) or one is
// not wanted.
void read_and_lex_here(LineSource& src, const OnBatch& on_batch, const NcclPipelineOptions& options) {
  NcclLineLexer lexer(options.memo != LineMemoUse::Never);
  Batch batch(std::max(options.batch_bytes, kMaxLine));
  auto hand_on = [&]() -> Batch& {
    batch.lex(lexer, options.read_ahead == ConnectionsReadAhead::Always);  // no one is behind
    on_batch(batch.lexed());
    batch.clear();
    return batch;
  };
  RunCollector runs(batch, hand_on);
  runs.collect(src);
  hand_on();
}

}  // namespace

void for_each_lexed_nccl_batch(LineSource& src, const OnBatch& on_batch, NcclPipelineOptions options) {
  if (!options.second_thread || usable_cpus() < 2) return read_and_lex_here(src, on_batch, options);
  std::size_t bytes = std::max(options.batch_bytes, kMaxLine);
  BatchQueue empty, full;
  for (std::size_t i = 0; i < std::max<std::size_t>(options.batches, 2); ++i)
    empty.push(std::make_unique<Batch>(bytes));
  std::exception_ptr reader_failure;
  std::thread reader;
  try {
    reader = std::thread([&] {
      try {
        read_and_lex(src, empty, full, options);
      } catch (const CallerStopped&) {
      } catch (...) {
        reader_failure = std::current_exception();
      }
      full.close();
    });
  } catch (const std::system_error&) {
    return read_and_lex_here(src, on_batch, options);  // no thread to be had: one is enough
  }
  try {
    while (auto batch = full.pop()) {
      on_batch(batch->lexed());
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
