// Reads an NCCL log on two threads: a second thread reads the file
// (decompressing it, taking NULs out), splits it into lines and lexes each
// (NcclLineLexer: the repeated-line memo and the record scan, which depend
// on the text alone); the calling thread gets the lexed lines in order and
// does what depends on the job (NcclLogParser). A multi-GB log costs the
// slower of the two halves instead of their sum (docs/performance.md);
// reading connection lines, which either half can do, goes to the reading
// thread while the other is the slower (ConnectionsReadAhead).
//
// The lines travel in batches: each batch owns a copy of its lines' text,
// so the views in a lexed line stay valid until the caller has been given
// the whole batch. A fixed number of batches circulates, so memory stays
// flat whatever the size of the log.
#pragma once

#include <cstddef>
#include <functional>
#include <span>

#include "analyze/line_source.h"
#include "evidence/nccl_line_lexer.h"

namespace gdrcheck {

// Who reads connection lines (NcclConnectionReading): work that either
// thread can do, as it depends on the line alone.
enum class ConnectionsReadAhead {
  // The reading thread, for a batch it had to wait for (the caller held
  // every other batch: it is the slower half just now). The two halves'
  // costs change along a log (the memo learns, then stands aside; runs of
  // connection lines), and this moves work to the thread with time to spare.
  WhenCallerBehind,
  Always,  // the reading thread, every batch (tests)
  Never,   // the caller's parser, every line
};

// Whether the lexer keeps the repeated-line memo (repeated_line_memo.h).
// On one thread it skips most of the work of a log whose lines repeat
// (0.5 GiB: 0.97 → 0.59 s on one CPU). With two threads that work runs
// beside the reading anyway, while the memo's learning (hashing and
// tagging every connection line until it knows the lines do not repeat)
// lands on the reading thread, the slower half: there it cost a log
// without repeats 15 % and saved a repeating one 4–12 % (docs/performance.md).
enum class LineMemoUse {
  WhenOneThread,
  Always,
  Never,
};

struct NcclPipelineOptions {
  std::size_t batch_bytes = 256 * 1024;  // text per batch; at least kMaxLine
  std::size_t batches = 4;               // in flight between the two threads
  // false: the same batches, read and handed on in turn on this thread
  // (also what happens when no thread can be started, or when this process
  // may run on one CPU only: host/usable_cpus.h).
  bool second_thread = true;
  ConnectionsReadAhead read_ahead = ConnectionsReadAhead::WhenCallerBehind;
  LineMemoUse memo = LineMemoUse::WhenOneThread;
};

using OnBatch = std::function<void(const NcclLexedBatch&)>;

// Calls `on_batch` on every batch of lines of `src`, in order, on this
// thread. An exception from `on_batch` stops the reading thread and is
// rethrown; one from the reading thread is rethrown here after the lines
// before it.
void for_each_lexed_nccl_batch(LineSource& src, const OnBatch& on_batch, NcclPipelineOptions options = {});

// The same, a line at a time (the call per line is inlined).
template <class F>
void for_each_lexed_nccl_line(LineSource& src, F&& on_line, NcclPipelineOptions options = {}) {
  for_each_lexed_nccl_batch(
      src,
      [&](const NcclLexedBatch& batch) {
        for (const NcclLexedLine& line : batch.lines) on_line(line);
      },
      options);
}

}  // namespace gdrcheck
