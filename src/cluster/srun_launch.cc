#include "cluster/srun_launch.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "cluster/hostlist.h"
#include "cluster/remote_end.h"
#include "cluster/slurm_node_state.h"
#include "cluster/slurm_schedulable.h"
#include "host/process.h"

namespace gdrcheck::launch {
namespace {

// The private directory srun writes the per-node files into, held open so
// every file in it is opened relative to it (a path component replaced
// after creation changes nothing), and removed with its contents.
class SrunOutputDir {
 public:
  explicit SrunOutputDir(const LaunchOptions& opts);
  SrunOutputDir(const SrunOutputDir&) = delete;
  SrunOutputDir& operator=(const SrunOutputDir&) = delete;
  ~SrunOutputDir();
  const std::string& path() const { return path_; }
  int fd() const { return fd_; }

 private:
  std::string path_;
  int fd_ = -1;
};

SrunOutputDir::SrunOutputDir(const LaunchOptions& opts) {
  std::string base = opts.scratch_dir.empty() ? "." : opts.scratch_dir;
  if (base[0] != '/') {
    char cwd[4096];
    if (::getcwd(cwd, sizeof cwd)) base = std::string(cwd) + "/" + base;
  }
  std::string pattern = base + "/.gdrcheck-srun-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  // mkdtemp makes a new directory, mode 0700, under a name nobody could
  // have prepared: no other user can plant or replace a task's file.
  if (!::mkdtemp(buffer.data())) {
    throw std::runtime_error("cannot create a directory in " + base + ": " + std::strerror(errno));
  }
  path_ = buffer.data();
  fd_ = ::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd_ < 0 || ::fchmod(fd_, 0700) != 0) {
    std::string why = std::strerror(errno);
    ::rmdir(path_.c_str());
    throw std::runtime_error("cannot open the directory " + path_ + " just created: " + why);
  }
}

SrunOutputDir::~SrunOutputDir() {
  // Everything in it is a task's file: unlinked without being opened (a
  // link is removed, never followed).
  if (DIR* d = ::fdopendir(::dup(fd_))) {
    while (const dirent* entry = ::readdir(d)) {
      std::string name = entry->d_name;
      if (name != "." && name != "..") ::unlinkat(fd_, name.c_str(), 0);
    }
    ::closedir(d);
  }
  ::close(fd_);
  ::rmdir(path_.c_str());
}

// A task's output file, as far as it may be read.
struct TaskFile {
  bool found = false;
  std::string text;
  bool cut = false;         // longer than the limit
  std::size_t dropped = 0;  // bytes not read
  std::string problem;      // why it was not read ("" = read, or missing)
};

// Reads DIR/NAME without following a link, without blocking on a FIFO,
// only when it is a regular file: its first `limit` bytes, or with `tail`
// its last.
TaskFile read_task_file(int dir_fd, const std::string& name, std::size_t limit, bool tail) {
  TaskFile f;
  int fd = ::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT) {
      f.found = true;
      f.problem = errno == ELOOP ? "is a symbolic link; not followed" : std::strerror(errno);
    }
    return f;
  }
  f.found = true;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    f.problem = "not a regular file";
    ::close(fd);
    return f;
  }
  auto size = static_cast<std::size_t>(std::max<off_t>(st.st_size, 0));
  if (tail && size > limit && ::lseek(fd, static_cast<off_t>(size - limit), SEEK_SET) >= 0) {
    f.cut = true;
    f.dropped = size - limit;
  }
  // One byte past the limit tells a file that is longer than it.
  char buf[65536];
  while (f.text.size() <= limit) {
    ssize_t n = ::read(fd, buf, std::min(sizeof buf, limit + 1 - f.text.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) f.problem = std::strerror(errno);
    if (n <= 0) break;
    f.text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  if (f.text.size() > limit) {
    f.text.resize(limit);
    f.cut = true;
    f.dropped = size > limit ? size - limit : 1;
  }
  return f;
}

// srun -v prints three lines of about 100 bytes per node: room for tens of
// thousands of nodes, and a bound on an srun that prints without end.
constexpr std::size_t kSrunLogLimit = 16u << 20;

// What srun (with -v) says on its stderr about each node:
//   srun: launching StepId=12.0 on host gpu01, 1 tasks: 0
//   srun: launch/slurm: _task_finish: gpu01: task 0: Completed
//   srun: error: gpu02: task 1: Exited with exit code 2
//   srun: error: gpu03: task 2: Segmentation fault (core dumped)
// With one task per node, the task id names the node's output files.
struct SrunNode {
  std::string task;  // "" when srun never said it launched there
  bool ended = false, exited = false;
  int exit_code = -1;
  std::string end_text;
};

struct SrunLog {
  std::vector<std::string> order;  // nodes in the order srun launched them
  std::map<std::string, SrunNode> nodes;
};

SrunLog read_srun_log(const std::string& err) {
  static const std::regex launching(R"(^srun: launching \S+ on host ([^, ]+), [0-9]+ tasks?: ([0-9]+))");
  static const std::regex task_end(R"(^srun: .*?([^: ]+): tasks? [0-9][0-9,\-]*: (.*)$)");
  static const std::regex exited(R"(^Exited with exit code ([0-9]+))");
  SrunLog log;
  for (const auto& line : lines_of(err)) {
    std::smatch m;
    if (std::regex_search(line, m, launching)) {
      SrunNode& node = log.nodes[m[1].str()];
      if (node.task.empty()) log.order.push_back(m[1].str());
      node.task = m[2].str();
    } else if (std::regex_match(line, m, task_end)) {
      SrunNode& node = log.nodes[m[1].str()];
      node.ended = true;
      node.end_text = m[2].str();
      std::smatch code;
      if (node.end_text == "Completed") {
        node.exited = true;
        node.exit_code = 0;
      } else if (std::regex_search(node.end_text, code, exited)) {
        node.exited = true;
        node.exit_code = std::stoi(code[1].str().substr(0, 9));
      }
    }
  }
  return log;
}

// srun's own messages, without its -v chatter: what explains a failure.
std::string srun_errors(const std::string& err) {
  std::string kept;
  for (const auto& line : lines_of(err)) {
    if (line.rfind("srun: error:", 0) == 0 || line.rfind("srun: fatal:", 0) == 0 ||
        line.rfind("srun: Job step aborted", 0) == 0 || line.rfind("srun: ", 0) != 0)
      kept += line + "\n";
  }
  return kept;
}

NodeOutcome srun_outcome(const std::string& node_name, const SrunNode& node, const SrunOutputDir& dir,
                         const ProcessResult& run, const LaunchOptions& opts) {
  if (node.task.empty()) {
    return {node_name, NodeOutcome::How::Unreachable, "",
            with_stderr("srun did not start gdrcheck on this node (srun " + run.describe() + ")", srun_errors(run.err)),
            -1};
  }
  const std::string out_name = node.task + ".out", err_name = node.task + ".err";
  TaskFile out = read_task_file(dir.fd(), out_name, kNodeReportLimit, false);
  TaskFile err = read_task_file(dir.fd(), err_name, kNodeStderrLimit, true);
  for (const auto& [file, name] : {std::pair{&out, &out_name}, std::pair{&err, &err_name}}) {
    if (!file->problem.empty())
      return {node_name, NodeOutcome::How::NotAReport, "", dir.path() + "/" + *name + ": " + file->problem, -1};
  }
  if (!out.found && !err.found) {
    return {node_name, NodeOutcome::How::Unreachable, "",
            "srun started gdrcheck here but its output file " + dir.path() + "/" + out_name +
                " is missing (the directory must be on a file system the nodes share)",
            -1};
  }
  RemoteEnd end;
  end.out = std::move(out.text);
  end.out_cut = out.cut;
  end.out_dropped = out.dropped;
  end.err = std::move(err.text);
  if (node.ended && !node.exited) {
    return {node_name, NodeOutcome::How::Crashed, std::move(end.out), with_stderr("srun: " + node.end_text, end.err),
            -1};
  }
  if (!node.ended) {
    end.kind = RemoteEnd::Kind::TimedOut;
    if (run.end != ProcessResult::End::TimedOut) {
      return {node_name, NodeOutcome::How::Failed, std::move(end.out),
              with_stderr("srun " + run.describe() + " before this node's gdrcheck ended", srun_errors(run.err)), -1};
    }
    return classify(node_name, std::move(end), opts.timeout);
  }
  end.kind = RemoteEnd::Kind::Exited;
  end.exit_code = node.exit_code;
  return classify(node_name, std::move(end), opts.timeout);
}

// The nodes srun should reach, when they can be known beforehand.
std::vector<std::string> expected_slurm_nodes(const LaunchOptions& opts) {
  if (!opts.slurm.nodelist.empty()) return expand_hostlist(opts.slurm.nodelist);
  const char* allocation = std::getenv("SLURM_JOB_NODELIST");
  if (opts.slurm.nodes.empty() && allocation && *allocation) return expand_hostlist(allocation);
  return {};
}

// What Slurm says of the -w nodes; empty when scontrol cannot tell (then
// srun is asked for every node, as without this step).
std::map<std::string, SlurmNodeState> slurm_node_states(const LaunchOptions& opts) {
  ProcessSpec spec = ProcessSpec::command(slurm_show_command({opts.slurm.nodelist}, opts.scontrol_program));
  spec.timeout = std::chrono::seconds(20);
  spec.output_limit = kSrunLogLimit;
  ProcessResult r = run_process(spec);
  // scontrol exits 1 when one name is unknown but still prints the others.
  return r.end == ProcessResult::End::Exited ? parse_slurm_nodes(r.out) : std::map<std::string, SlurmNodeState>{};
}

// The options for the srun of the nodes that can take a job: -w without
// the others, and -N no larger than what is left.
LaunchOptions runnable_only(const LaunchOptions& opts, const std::vector<std::string>& runnable) {
  LaunchOptions narrowed = opts;
  narrowed.slurm.nodelist = fold_hostlist(runnable);
  if (!opts.slurm.nodes.empty()) {
    std::size_t asked = std::strtoul(opts.slurm.nodes.c_str(), nullptr, 10);
    if (asked > runnable.size()) narrowed.slurm.nodes = std::to_string(runnable.size());
  }
  return narrowed;
}

std::vector<NodeOutcome> run_srun(const LaunchOptions& opts, std::vector<std::string> expected) {
  const SrunOutputDir dir(opts);
  ProcessSpec spec;
  spec.argv = srun_argv(opts, dir.path());
  spec.timeout = opts.timeout;
  // The nodes' output goes to files; srun's own streams are its log.
  spec.output_limit = kNodeStderrLimit;
  spec.error_limit = kSrunLogLimit;
  ProcessResult run = run_process(spec);
  SrunLog log = read_srun_log(run.err);

  std::vector<std::string> nodes = expected;
  std::set<std::string> listed(expected.begin(), expected.end());
  for (const auto& node : log.order) {
    if (listed.insert(node).second) nodes.push_back(node);
  }
  std::vector<NodeOutcome> outcomes;
  for (const auto& node : nodes) outcomes.push_back(srun_outcome(node, log.nodes[node], dir, run, opts));
  if (nodes.empty()) {
    // Nothing ran and nothing says which nodes should have: srun's own words.
    outcomes.push_back({"srun", NodeOutcome::How::Failed, std::move(run.out),
                        with_stderr("no node ran gdrcheck (srun " + run.describe() + ")", srun_errors(run.err)),
                        run.end == ProcessResult::End::Exited ? run.exit_code : -1});
  }
  return outcomes;
}

}  // namespace

std::vector<NodeOutcome> run_slurm(const LaunchOptions& opts) {
  std::vector<std::string> expected = expected_slurm_nodes(opts);
  if (opts.slurm.nodelist.empty()) return run_srun(opts, std::move(expected));
  SchedulableSplit split = split_schedulable(expected, slurm_node_states(opts));
  if (split.skipped.empty()) return run_srun(opts, std::move(expected));
  std::vector<NodeOutcome> outcomes;
  if (!split.runnable.empty()) outcomes = run_srun(runnable_only(opts, split.runnable), split.runnable);
  for (auto& s : split.skipped) outcomes.push_back(std::move(s));
  return outcomes;
}

}  // namespace gdrcheck::launch
