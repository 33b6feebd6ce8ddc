// Reader for nccl-tests / rccl-tests output (all_reduce_perf, alltoall_perf,
// ...), as printed or as pasted: any release from 2018 on, with launcher
// prefixes (mpirun --tag-output, srun --label, Ray), NCCL INFO lines in
// between, '#' lost to Markdown, cut short, two outputs side by side, or
// several processes' outputs interleaved. It only reports what the text
// says; whether the numbers are good is for the checks (they know the NIC
// generation).
//
// Streaming: feed() one line at a time, finish() once. Memory grows with the
// number of table rows and rank lines kept (both capped), never with the
// other lines, so a multi-GB NCCL_DEBUG=INFO log with a table in it is fine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace gdrcheck {

// True when the first lines of a file look like nccl-tests output: the
// version or "Collective test starting" line, the parameter line, the table
// header, a footer line, or a row under a header. For auto-detection.
bool looks_like_nccl_tests(std::string_view head);

// One "#  Rank  0 Group  0 Pid 41234 on node01 device  0 [0000:19:00] NAME".
struct NcclTestsRank {
  int rank = 0;
  std::optional<int> group;  // printed since nccl-tests v2.13.9
  long pid = 0;
  std::string host;  // may be empty: an empty hostname prints as blanks
  int device = 0;
  std::string pci;  // "0000:19:00" (v2.15+) or "0x19" (older), as printed
  std::string gpu;  // "NVIDIA H100 80GB HBM3"
};

// time / algbw / busbw / #wrong of one half (out-of-place or in-place).
struct NcclTestsResult {
  double time_us = 0;
  double algbw = 0;  // GB/s, GB = 1e9 bytes
  double busbw = 0;  // GB/s
  // #wrong (wrong elements over all ranks) or, in old releases, the "error"
  // column (largest relative error). nullopt when printed as N/A (-c 0, or
  // a half the test does not check).
  std::optional<double> wrong;
};

struct NcclTestsRow {
  uint64_t size = 0;         // bytes
  uint64_t count = 0;        // elements (per rank for gather/scatter-like tests)
  std::string type;          // float, half, bfloat16, ...
  std::string redop;         // sum, none, ... ; empty when the release printed none
  std::optional<long> root;  // -1 for rootless; absent in old releases
  // Each half is absent when the row did not print it (alltoall/sendrecv
  // variants and trace replay print one half only).
  std::optional<NcclTestsResult> out_of_place;
  std::optional<NcclTestsResult> in_place;
  std::size_t line = 0;  // 1-based line in the input
};

// One test run: from its header lines to its footer. A file can hold
// several (scripts that loop over sizes or collectives).
struct NcclTestsRun {
  // "all_reduce_perf" as printed (or "all_reduce_perf_mpi"); when the run
  // never said, a guess from the table shape, or "" when the shape does not
  // decide (see notes).
  std::string test_name;
  bool test_name_inferred = false;
  // The test the command line above the table ran ("./build/all_gather_perf
  // -b 8 ..."): the name when the output does not print one.
  std::string command_test_name;
  std::string tool;          // "nccl-tests" / "rccl-tests" when a version line says so
  std::string version_line;  // "# nccl-tests version 2.19.6 nccl-headers=..." as printed
  std::string nccl_version;  // "2.12.7+cuda11.4" from "NCCL version ..." when present
  // "nThread 1 nGpus 1 minBytes 8 ..." as key/value pairs, keys as printed
  // ("nThread", "warmup iters", "step").
  std::vector<std::pair<std::string, std::string>> params;
  std::vector<NcclTestsRank> ranks;
  std::vector<std::string> hosts;  // distinct, in rank-line order
  // The rank lines are not all of the run's: they start above rank 0, skip
  // ranks, or the output ends inside the list. ranks.size() and
  // hosts.size() are then lower bounds, not the job's rank and node counts.
  bool rank_list_cut = false;
  // "#wrong" (count of wrong elements) or "error" (older releases: a
  // float, non-zero values within rounding are normal).
  std::string wrong_column;
  std::vector<NcclTestsRow> rows;

  std::optional<double> avg_busbw;    // "# Avg bus bandwidth    : 37.7321"
  std::optional<bool> avg_busbw_ok;   // its OK/FAILED, printed only with NCCL_TESTS_MIN_BW
  std::optional<long> out_of_bounds;  // "# Out of bounds values : 0 OK"
  bool out_of_bounds_failed = false;

  // Largest out-of-place busbw and the size it was measured at (the
  // number to compare with a NIC's line rate, unlike the average).
  std::optional<double> max_busbw;
  std::optional<uint64_t> max_busbw_size;
  std::size_t rows_with_wrong = 0;  // rows with a non-zero #wrong (#wrong era only)
  std::vector<std::string> errors;  // "Test NCCL failure ...", "# error: ..." lines
  bool complete = false;            // a footer was seen
  bool failed = false;              // out-of-bounds FAILED, avg FAILED, #wrong, errors
  std::vector<std::string> notes;
};

struct NcclTestsReport {
  std::vector<NcclTestsRun> runs;
  std::size_t lines = 0;
  std::size_t info_lines = 0;      // NCCL INFO/WARN lines skipped
  std::vector<std::string> notes;  // about the whole input
};

class NcclTestsParser {
 public:
  // One line, with or without its '\n'. Lines longer than 64 KiB are cut.
  void feed(std::string_view line);
  // Ends the input: closes the last run and adds the notes that need the
  // whole run (no footer, test name guess, footer average vs rows).
  NcclTestsReport finish();

  // Caps that keep memory bounded on hostile input.
  static constexpr std::size_t kMaxRows = 100000;  // over all runs
  static constexpr std::size_t kMaxRanks = 65536;  // over all runs
  static constexpr std::size_t kMaxRuns = 4096;

 private:
  struct Layout {
    bool seen = false;
    std::size_t group_width = 4;  // 8 with per-iteration columns
    bool error_column = false;    // "error" instead of "#wrong"
    bool timestamp = false;
    bool type_column = true;      // "type" between count and the results
    bool in_place_first = false;  // the group line names in-place first
  };

  NcclTestsRun& current();
  NcclTestsRun& fresh_run();
  void close_run();
  bool handle_comment(std::string_view body, std::string_view raw);
  bool handle_rank(std::string_view body);
  bool handle_header(const std::vector<std::string_view>& words);
  bool handle_out_of_bounds(std::string_view body);
  bool handle_average(std::string_view body);
  bool handle_row(std::string_view text);
  void read_line(std::string_view text);
  void feed_right(std::string_view text);
  bool rank_to_sibling(NcclTestsRank& rank);
  void record_row(NcclTestsRun& run, NcclTestsRow row);
  void add_error(std::string text);
  void note(std::string text);

  NcclTestsReport report_;
  std::optional<NcclTestsRun> run_;
  std::string pending_command_test_;  // a command line seen before its run began
  // Runs from report_.runs[siblings_from_] on were opened while the one
  // before had printed only its parameter lines: several processes writing
  // their own output at once (interleaved), not one run after another.
  std::size_t siblings_from_ = SIZE_MAX;
  struct Sibling {
    std::unordered_set<int> ranks;
    std::unordered_set<std::string> hosts;
  };
  std::vector<Sibling> siblings_;       // of report_.runs[siblings_from_ + i]; at most 64
  std::unordered_set<int> ranks_seen_;  // rank numbers of the open run
  // The right-hand output of a side-by-side paste, read as its own input.
  std::unique_ptr<NcclTestsParser> right_;
  void on_command_line(std::string name);
  Layout layout_;
  bool groups_in_place_first_ = false;          // the last group-name line, for the next header
  bool run_has_table_ = false;                  // header, rows or footer seen in the open run
  std::unordered_set<std::string> hosts_seen_;  // of the open run
  std::size_t total_rows_ = 0, total_ranks_ = 0;
  bool rows_capped_ = false;
  bool finished_ = false;
};

// Convenience: feeds every line of `text` and finishes.
NcclTestsReport parse_nccl_tests(std::string_view text);

}  // namespace gdrcheck
