// The NCCL / RCCL records in one physical log line.
//
// A physical line may hold zero, one or several records: writers of
// different ranks share a terminal, so one record can be glued to (or cut
// by) another. Every "NCCL INFO" / "NCCL WARN" / "NCCL TRACE" marker starts
// a record; walking back from it over "host:pid:tid [dev] " (and the
// "file:line (func) " of WARN lines) finds where that record begins, and
// so where the previous record's message ends. Whatever stands before the
// host (launcher prefixes, timestamps, ANSI debris) is ignored.
//
// The scanner hands out views into the line and never allocates: it runs
// on every line of multi-GB logs.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gdrcheck {

enum class NcclLevel { Info, Warn, Trace };

struct NcclRecord {
  NcclLevel level = NcclLevel::Info;
  std::string_view host;  // "" when not printed, or masked ("XXXXX")
  std::string_view pid;
  std::string_view msg;  // the text after the marker, trimmed
};

// Walks the records of one line, in order:
//   NcclRecordScanner s(line);
//   for (NcclRecord r; s.next(r);) ...
class NcclRecordScanner {
  struct Marker {
    std::size_t pos = 0, len = 0;
    NcclLevel level = NcclLevel::Info;
    bool found = false;
  };
  struct Prefix {
    std::size_t start = 0;
    std::string_view host, pid;
  };

 public:
  // Where the first record of the last line began, and its bytes up to
  // just past the level word. A process prints line after line with the
  // same "host:pid:tid [dev] NCCL INFO ", so a line that starts with the
  // same bytes has the same first marker and prefix (nothing before the
  // marker differs, and the marker is found from those bytes alone).
  class FirstRecordCache {
    friend class NcclRecordScanner;
    std::string bytes;
    Marker marker;
    std::size_t start = 0, host_at = 0, host_len = 0, pid_at = 0, pid_len = 0;
  };

  // `cache`, when given, carries the first record's place from line to line.
  explicit NcclRecordScanner(std::string_view line, FirstRecordCache* cache = nullptr);
  bool next(NcclRecord& out);

 private:
  bool first_from_cache(const FirstRecordCache& cache);
  void keep_first(FirstRecordCache& cache) const;
  Marker find_marker(std::size_t from) const;
  Prefix prefix_before(const Marker& m, std::size_t lo) const;

  std::string_view line_;
  Marker marker_;
  Prefix prefix_;
};

// Whether the line holds a marker with a "[dev]" token just before it (up
// to three tokens back on WARN lines, for "file:line (func)"): the shape
// of a real NCCL record, for detecting the input kind.
bool has_nccl_record_with_device(std::string_view line);

}  // namespace gdrcheck
