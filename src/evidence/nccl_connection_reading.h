// A connection line read ahead of its turn. What a connection line states
// and the hash of its key (NcclConnectionIndex) depend only on the line,
// not on the lines before it, so they can be worked out early: on the
// lexing thread when the reader is behind (NcclLineLexer::lex_all), or a
// few lines ahead on the reader's own thread so that the index slot is
// fetched from memory before it is probed (NcclLogParser::feed).
#pragma once

#include <cstdint>
#include <string_view>

#include "evidence/nccl_channel_line.h"
#include "evidence/nccl_connection_index.h"
#include "evidence/nccl_record.h"

namespace gdrcheck {

struct NcclConnectionReading {
  std::string_view msg;        // the record it was read from
  bool complete = false;       // a whole connection line (read_nccl_channel_line)
  NcclChannelLine line;        // when complete
  std::uint64_t key_hash = 0;  // a complete NET line: the hash of its key
};

// The key a connection line is deduplicated by: what it states, and the
// host and process that printed it.
NcclConnectionKey nccl_connection_key(const NcclChannelLine& c, std::string_view host, std::string_view pid);

// Reads `r` into `out` when its message starts like a connection line
// (complete or not); false, `out` untouched, when it does not.
bool read_connection_ahead(const NcclRecord& r, NcclConnectionReading& out, const NcclConnectionKeyHasher& hash);

}  // namespace gdrcheck
