// Reads an NCCL log on two threads: a second thread reads the file
// (decompressing it, taking NULs out), splits it into lines and lexes each
// (NcclLineLexer: the repeated-line memo and the record scan, which depend
// on the text alone); the calling thread gets the lexed lines in order and
// does what depends on the job (NcclLogParser). A multi-GB log costs the
// slower of the two halves instead of their sum (docs/performance.md).
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

struct NcclPipelineOptions {
  std::size_t batch_bytes = 256 * 1024;  // text per batch; at least kMaxLine
  std::size_t batches = 4;               // in flight between the two threads
  // false: the same batches, read and handed on in turn on this thread
  // (also what happens when no thread can be started).
  bool second_thread = true;
};

using OnBatch = std::function<void(std::span<const NcclLexedLine>)>;

// Calls `on_batch` on every batch of lines of `src`, in order, on this
// thread. An exception from `on_batch` stops the reading thread and is
// rethrown; one from the reading thread is rethrown here after the lines
// before it.
void for_each_lexed_nccl_batch(LineSource& src, const std::function<void(std::span<const NcclLexedLine>)>& on_batch,
                               NcclPipelineOptions options = {});

// The same, a line at a time (the call per line is inlined).
template <class F>
void for_each_lexed_nccl_line(LineSource& src, F&& on_line, NcclPipelineOptions options = {}) {
  for_each_lexed_nccl_batch(
      src,
      [&](std::span<const NcclLexedLine> lines) {
        for (const NcclLexedLine& line : lines) on_line(line);
      },
      options);
}

}  // namespace gdrcheck
