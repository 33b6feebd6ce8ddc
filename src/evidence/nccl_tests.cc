// Reader for nccl-tests / rccl-tests output: which run a line belongs to,
// and what the run adds up to. Line cleaning and launcher prefixes are in
// nccl_tests_text, the lines that carry facts in nccl_tests_rows, the test
// name from a table's shape in nccl_tests_infer.
#include "evidence/nccl_tests.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "evidence/nccl_tests_infer.h"
#include "evidence/nccl_tests_rows.h"
#include "evidence/nccl_tests_text.h"
#include "host/text_numbers.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kMaxNcclTestsNotes = 50;
constexpr std::size_t kMaxNcclTestsErrors = 20;

}  // namespace

// ================================================================ parser

NcclTestsRun& NcclTestsParser::current() {
  if (!run_) {
    run_.emplace();
    layout_ = Layout{};
    run_has_table_ = false;
    hosts_seen_.clear();
    ranks_seen_.clear();
    run_->command_test_name = std::move(pending_command_test_);
    pending_command_test_.clear();
  }
  return *run_;
}

void NcclTestsParser::on_command_line(std::string name) {
  if (run_ && !run_has_table_ && run_->command_test_name.empty())
    run_->command_test_name = std::move(name);  // its header lines came first
  else {
    if (run_has_table_) close_run();  // the previous test's table is over
    pending_command_test_ = std::move(name);
  }
}

NcclTestsRun& NcclTestsParser::fresh_run() {
  if (report_.runs.size() + 1 >= kMaxRuns) {
    note("more than " + std::to_string(kMaxRuns) + " runs; later runs merged into the last");
    return current();
  }
  close_run();
  return current();
}

void NcclTestsParser::note(std::string text) {
  auto& notes = current().notes;
  if (notes.size() < kMaxNcclTestsNotes && std::find(notes.begin(), notes.end(), text) == notes.end())
    notes.push_back(std::move(text));
}

namespace {

bool is_empty_run(const NcclTestsRun& r) {
  return r.rows.empty() && r.ranks.empty() && r.params.empty() && r.test_name.empty() && r.version_line.empty() &&
         !r.avg_busbw && !r.out_of_bounds && r.errors.empty() && r.wrong_column.empty();
}

double mean_busbw(const NcclTestsRun& run, std::size_t* values) {
  double sum = 0;
  *values = 0;
  for (const auto& r : run.rows)
    for (const auto& half : {r.out_of_place, r.in_place})
      if (half) {
        sum += half->busbw;
        ++*values;
      }
  return *values ? sum / static_cast<double>(*values) : 0;
}

// Whether the rank lines are 0..n-1, each number once (a repeated number
// is another process's line, see rank_to_sibling).
bool ranks_from_zero_without_gaps(const NcclTestsRun& run) {
  std::vector<int> numbers;
  numbers.reserve(run.ranks.size());
  for (const auto& r : run.ranks) numbers.push_back(r.rank);
  std::sort(numbers.begin(), numbers.end());
  numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
  return !numbers.empty() && numbers.front() == 0 && static_cast<std::size_t>(numbers.back()) + 1 == numbers.size();
}

// `table_followed`: a header, row or footer came after the rank lines, so
// the list ended where the tool ended it.
void add_run_notes(NcclTestsRun& run, bool table_followed) {
  auto add = [&](std::string s) {
    if (run.notes.size() < kMaxNcclTestsNotes) run.notes.push_back(std::move(s));
  };
  if (!run.ranks.empty()) {
    bool whole = ranks_from_zero_without_gaps(run);
    run.rank_list_cut = !whole || !table_followed;
    if (!whole)
      add("the rank lines (" + std::to_string(run.ranks.size()) + ", from rank " + std::to_string(run.ranks[0].rank) +
          ") do not run from rank 0 without gaps: the list is cut, so the job's rank and node counts are unknown");
    else if (!table_followed)
      add("the output ends inside the rank list: more ranks and hosts may follow");
  }
  if (!run.complete)
    add("no footer (Out of bounds / Avg bus bandwidth): the output is cut short or the test did not finish");
  if (run.test_name.empty() && !run.command_test_name.empty()) {
    run.test_name = run.command_test_name;
    add("test name from the command line above the table: " + run.test_name);
  }
  if (run.test_name.empty() && !run.rows.empty()) {
    std::string basis;
    run.test_name = nccltests::infer_test_name(run, &basis);
    run.test_name_inferred = !run.test_name.empty();
    add(run.test_name.empty() ? "test name not printed and not decided by the table (" + basis + ")"
                              : "test name not printed; " + run.test_name + " inferred from the table (" + basis + ")");
  }
  std::size_t values = 0;
  double mean = mean_busbw(run, &values);
  if (run.avg_busbw && values > 0 && std::fabs(mean - *run.avg_busbw) > std::max(0.05 * *run.avg_busbw, 0.02))
    add("footer average " + std::to_string(*run.avg_busbw) + " differs from the mean of the " + std::to_string(values) +
        " printed busbw values (" + std::to_string(mean) + "): rows are missing from this copy");
  if (run.wrong_column == "error") add("old 'error' column (largest relative error, not a count of wrong elements)");
  run.failed = run.out_of_bounds_failed || run.avg_busbw_ok == false || run.rows_with_wrong > 0 || !run.errors.empty();
}

}  // namespace

void NcclTestsParser::close_run() {
  if (!run_) return;
  NcclTestsRun run = std::move(*run_);
  run_.reset();
  if (is_empty_run(run)) return;
  add_run_notes(run, run_has_table_);
  report_.runs.push_back(std::move(run));
}

// Lines that start with '#' (or the same text without it, as old releases
// and Markdown pastes print). Returns false when the line is none of them.
bool NcclTestsParser::handle_comment(std::string_view body, std::string_view raw) {
  std::string_view first = nccltests::first_word(body);
  if (first.empty()) return true;
  if (body.starts_with("nccl-tests version") || body.starts_with("rccl-tests version")) {
    auto& run =
        (run_has_table_ || (run_ && (!run_->version_line.empty() || !run_->params.empty()))) ? fresh_run() : current();
    run.version_line = std::string(raw);
    run.tool = std::string(body.substr(0, 10));
    if (auto v = nccltests::nccl_library_version(body); v && run.nccl_version.empty()) run.nccl_version = *v;
    return true;
  }
  if (body.starts_with("Collective test starting:")) {
    auto& run =
        (run_has_table_ || (run_ && (!run_->test_name.empty() || !run_->params.empty()))) ? fresh_run() : current();
    run.test_name = std::string(nccltests::trim(body.substr(25)));
    return true;
  }
  if (body.starts_with("Collective test concluded:")) {
    current().complete = true;
    close_run();
    return true;
  }
  if (first == "nThread") {
    bool sibling = !run_has_table_ && run_ && !run_->params.empty() && run_->ranks.empty();
    std::string command = sibling ? run_->command_test_name : "";
    if (!sibling) {
      siblings_from_ = SIZE_MAX;
      siblings_.clear();
    } else if (siblings_from_ == SIZE_MAX || siblings_from_ + siblings_.size() == report_.runs.size()) {
      // The open run is about to be closed as the next sibling.
      if (siblings_from_ == SIZE_MAX) siblings_from_ = report_.runs.size();
      if (siblings_.size() < 64) siblings_.emplace_back();
    }
    auto& run = (run_has_table_ || (run_ && !run_->params.empty())) ? fresh_run() : current();
    run.params = nccltests::parse_params(body);
    if (sibling && run.command_test_name.empty()) run.command_test_name = std::move(command);
    return true;
  }
  if (first == "Rank") return handle_rank(body);
  if (nccltests::contains(body, "out-of-place")) {
    // The group names above the header; most print out-of-place first.
    auto in = body.find("in-place");
    groups_in_place_first_ = in != std::string_view::npos && in < body.find("out-of-place");
    return true;
  }
  if (body.starts_with("Using devices") || first == "(B)") return true;
  if (first == "size") {
    auto words = nccltests::split_words(body);
    if (std::find(words.begin(), words.end(), "busbw") != words.end()) return handle_header(words);
  }
  if (body.starts_with("Out of bounds values")) return handle_out_of_bounds(body);
  if (body.starts_with("Avg bus bandwidth")) return handle_average(body);
  if (body.starts_with("error:") && raw.front() == '#') {
    add_error(std::string(nccltests::trim(body.substr(6))));
    return true;
  }
  if (body.starts_with("Reducing maxBytes")) {
    note(std::string(body));
    return true;
  }
  return body.starts_with("Blocking Enabled") || body.starts_with("Parallel Init") ||
         body.starts_with("Per-Iteration Report") || body.starts_with("Writing JSON") ||
         body.starts_with("Errors with asterisks") || body.starts_with("GPU memory usage") ||
         body.starts_with("skipping json");
}

// A rank number the open run already listed, while runs opened next to it
// (siblings_from_) lack it: each process of a launcher printed its own
// output, so the line belongs to a sibling run. Adds it there.
bool NcclTestsParser::rank_to_sibling(NcclTestsRank& rank) {
  if (!run_ || ranks_seen_.count(rank.rank) == 0) return false;
  std::string why = "rank " + std::to_string(rank.rank) +
                    " printed by more than one process: each process ran a test of its own (nccl-tests built "
                    "without MPI=1, started by mpirun/srun), not one job over all of them";
  note(why);
  for (std::size_t k = 0; k < siblings_.size() && siblings_from_ + k < report_.runs.size(); ++k) {
    if (!siblings_[k].ranks.insert(rank.rank).second) continue;
    NcclTestsRun& sibling = report_.runs[siblings_from_ + k];
    if (!rank.host.empty() && siblings_[k].hosts.insert(rank.host).second) sibling.hosts.push_back(rank.host);
    sibling.ranks.push_back(std::move(rank));
    if (std::find(sibling.notes.begin(), sibling.notes.end(), why) == sibling.notes.end()) sibling.notes.push_back(why);
    return true;
  }
  return false;
}

bool NcclTestsParser::handle_rank(std::string_view body) {
  auto r = nccltests::parse_rank(body);
  if (!r) return false;
  if (run_ && (run_has_table_ || run_->complete)) fresh_run();  // a new run's rank list after a table
  if (total_ranks_ >= kMaxRanks) {
    note("more than " + std::to_string(kMaxRanks) + " rank lines; the rest are not kept");
    return true;
  }
  ++total_ranks_;
  if (rank_to_sibling(*r)) return true;
  auto& run = current();
  ranks_seen_.insert(r->rank);
  if (!r->host.empty() && hosts_seen_.insert(r->host).second) run.hosts.push_back(r->host);
  run.ranks.push_back(std::move(*r));
  return true;
}

bool NcclTestsParser::handle_header(const std::vector<std::string_view>& words) {
  auto& run = (run_ && (!run_->rows.empty() || run_->complete || run_->avg_busbw)) ? fresh_run() : current();
  std::vector<std::size_t> times;
  for (std::size_t i = 0; i < words.size(); ++i)
    if (words[i] == "time" || words[i] == "cputime") times.push_back(i);
  if (times.empty()) return true;
  Layout l;
  l.seen = true;
  l.error_column = std::find(words.begin(), words.end(), "error") != words.end();
  l.timestamp = std::find(words.begin(), words.end(), "timestamp") != words.end();
  l.type_column = std::find(words.begin(), words.end(), "type") != words.end();
  l.in_place_first = groups_in_place_first_;
  groups_in_place_first_ = false;
  std::size_t end = words.size() - (l.timestamp ? 1 : 0);
  l.group_width = times.size() >= 2 ? times[1] - times[0] : end - times[0];
  if (l.group_width < 4 || l.group_width > 8) l.group_width = 4;
  layout_ = l;
  run.wrong_column = l.error_column ? "error" : "#wrong";
  run_has_table_ = true;
  return true;
}

bool NcclTestsParser::handle_out_of_bounds(std::string_view body) {
  auto v = nccltests::parse_out_of_bounds(body);
  auto& run = current();
  run_has_table_ = true;
  if (!v) {
    note("unreadable footer: " + std::string(body));
    return true;
  }
  run.out_of_bounds = v->first;
  run.out_of_bounds_failed = v->second;
  run.complete = true;
  return true;
}

bool NcclTestsParser::handle_average(std::string_view body) {
  auto& run = current();
  run_has_table_ = true;
  run.complete = true;
  std::size_t colon = body.find(':');
  auto w = nccltests::split_words(colon == std::string_view::npos ? std::string_view() : body.substr(colon + 1));
  auto v = w.empty() ? std::nullopt : whole_number<double>(w[0]);
  if (!v) {
    note("unreadable footer: " + std::string(body));
    return true;
  }
  if (run.avg_busbw) note("two average lines in one run; the last one is kept");
  run.avg_busbw = v;
  if (w.size() > 1 && (w[1] == "OK" || w[1] == "FAILED")) run.avg_busbw_ok = w[1] == "OK";
  return true;
}

void NcclTestsParser::add_error(std::string text) {
  auto& run = current();
  if (run.errors.size() < kMaxNcclTestsErrors)
    run.errors.push_back(std::move(text));
  else
    note("more than " + std::to_string(kMaxNcclTestsErrors) + " error lines; the rest are not kept");
}

bool NcclTestsParser::handle_row(std::string_view text) {
  auto row = nccltests::parse_row(text, layout_.group_width, layout_.seen, !layout_.seen || layout_.type_column);
  if (!row) return false;
  if (layout_.in_place_first) std::swap(row->in_place, row->out_of_place);
  auto& run = current();
  run_has_table_ = true;
  if (run.wrong_column.empty() && row->out_of_place && row->out_of_place->wrong) {
    // No header: an exponent or a fraction means the old error column.
    auto w = nccltests::split_words(text);
    bool fractional = std::any_of(w.begin() + 3, w.end(), [](std::string_view t) {
      return (nccltests::contains(t, "e-") || nccltests::contains(t, "e+")) && whole_number<double>(t);
    });
    run.wrong_column = fractional ? "error" : "#wrong";
  }
  if (!row->in_place && row->out_of_place) note("rows with one result group; read as out-of-place");
  if (row->in_place && !row->out_of_place)
    note("rows with one result group; read as in-place, as the header orders them");
  record_row(run, std::move(*row));
  return true;
}

void NcclTestsParser::record_row(NcclTestsRun& run, NcclTestsRow row) {
  row.line = report_.lines;
  // Out-of-place is the figure people quote; a row with in-place only has that.
  const auto& oop = row.out_of_place ? row.out_of_place : row.in_place;
  if (oop && (!run.max_busbw || oop->busbw > *run.max_busbw)) {
    run.max_busbw = oop->busbw;
    run.max_busbw_size = row.size;
  }
  bool wrong = run.wrong_column != "error" && ((oop && oop->wrong && *oop->wrong != 0) ||
                                               (row.in_place && row.in_place->wrong && *row.in_place->wrong != 0));
  if (wrong) ++run.rows_with_wrong;
  if (total_rows_ >= kMaxRows) {
    if (!rows_capped_) note("more than " + std::to_string(kMaxRows) + " rows; the rest are counted, not kept");
    rows_capped_ = true;
    return;
  }
  ++total_rows_;
  run.rows.push_back(std::move(row));
}

void NcclTestsParser::feed(std::string_view raw_line) {
  if (finished_) return;
  ++report_.lines;
  std::string scratch;
  std::string_view line = nccltests::clean(raw_line, &scratch);
  if (auto halves = nccltests::split_side_by_side(line)) {
    feed_right(halves->right);
    line = halves->left;
  }
  read_line(nccltests::strip_launcher(line));
}

void NcclTestsParser::feed_right(std::string_view text) {
  if (!right_) right_ = std::make_unique<NcclTestsParser>();
  right_->report_.lines = report_.lines - 1;  // rows keep this input's line numbers
  right_->feed(text);
}

void NcclTestsParser::read_line(std::string_view text) {
  if (text.empty()) return;
  if (nccltests::is_nccl_log_line(text)) {
    ++report_.info_lines;
    if (auto v = nccltests::nccl_version_in(text); v && run_) run_->nccl_version = *v;
    return;
  }
  if (text.starts_with("NCCL version ")) {
    if (auto v = nccltests::nccl_version_in(text)) current().nccl_version = *v;
    return;
  }
  if (text.starts_with("rccl-tests:")) {  // "rccl-tests: Version HEAD:e1b8a3a"
    auto& run = current();
    if (run.version_line.empty()) run.version_line = std::string(text);
    run.tool = "rccl-tests";
    return;
  }
  if (text.front() == '#') {
    handle_comment(nccltests::trim(text.substr(1)), text);
    return;
  }
  if (handle_comment(text, text) || handle_row(text)) return;
  if (std::string name = nccltests::command_test_name(text); !name.empty()) return on_command_line(std::move(name));
  if (nccltests::is_error_line(text)) add_error(std::string(text));
}

NcclTestsReport NcclTestsParser::finish() {
  if (!finished_) {
    close_run();
    if (right_) {
      // Printed after the left-hand runs, in the order a reader compares them.
      NcclTestsReport right = right_->finish();
      for (auto& run : right.runs) {
        if (run.notes.size() < kMaxNcclTestsNotes)
          run.notes.push_back("the right-hand output of two pasted side by side ('|')");
        report_.runs.push_back(std::move(run));
      }
      report_.notes.push_back("two outputs pasted side by side, one '|' between them: read as separate runs");
    }
    if (report_.runs.empty()) report_.notes.push_back("no nccl-tests output found");
    if (report_.runs.size() > 1)
      report_.notes.push_back(std::to_string(report_.runs.size()) + " test runs in one input");
    finished_ = true;
  }
  return std::move(report_);
}

bool looks_like_nccl_tests(std::string_view head) {
  std::size_t start = 0, lines = 0, headless_rows = 0;
  bool header = false, typed = true;
  while (start < head.size() && lines++ < 400) {
    std::size_t end = std::min(head.find('\n', start), head.size());
    std::string scratch;
    std::string_view t = nccltests::clean(head.substr(start, end - start), &scratch);
    if (auto halves = nccltests::split_side_by_side(t)) t = halves->left;
    t = nccltests::strip_launcher(t);
    start = end + 1;
    if (!t.empty() && t.front() == '#') t = nccltests::trim(t.substr(1));
    if (t.starts_with("nccl-tests version") || t.starts_with("rccl-tests version") ||
        t.starts_with("Collective test starting:") || t.starts_with("Avg bus bandwidth") ||
        t.starts_with("Out of bounds values"))
      return true;
    auto w = nccltests::split_words(t);
    if (w.size() >= 4 && w[0] == "nThread" && w[2] == "nGpus") return true;
    bool is_header =
        std::find(w.begin(), w.end(), "size") != w.end() && std::find(w.begin(), w.end(), "busbw") != w.end();
    header = header || is_header;
    if (is_header) typed = std::find(w.begin(), w.end(), "type") != w.end();
    if (header && !is_header && nccltests::parse_row(t, 4, false, typed)) return true;
    // A table cut above its header: three rows in a row are enough.
    headless_rows = !is_header && nccltests::parse_row(t, 4, false, true) ? headless_rows + 1 : 0;
    if (headless_rows >= 3) return true;
  }
  return false;
}

NcclTestsReport parse_nccl_tests(std::string_view text) {
  NcclTestsParser p;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = std::min(text.find('\n', start), text.size());
    p.feed(text.substr(start, end - start));
    start = end + 1;
  }
  return p.finish();
}

}  // namespace gdrcheck
