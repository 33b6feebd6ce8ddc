#include "netns_hosts.h"

#include <filesystem>
#include <fstream>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <fstream>
#include <set>
#include <stdexcept>

#include "host/process.h"
#include "recorded_fixtures.h"

namespace gdrcheck::testing {
namespace {

const std::string kScripts = std::string(GDRCHECK_DATA_DIR) + "/scripts/test-hosts/";

ProcessResult run_merged(const std::vector<std::string>& argv) {
  ProcessSpec spec = ProcessSpec::command(argv);
  spec.timeout = std::chrono::seconds(60);
  spec.merge_stderr = true;
  return run_process(spec);
}

void run_or_throw(const std::vector<std::string>& argv) {
  ProcessResult r = run_merged(argv);
  if (!r.succeeded()) {
    std::string line;
    for (const auto& a : argv) line += a + " ";
    throw std::runtime_error(line + "-> " + r.describe() + "\n" + r.out);
  }
}

void write_host_script(const std::string& path, const std::string& body) {
  std::ofstream(path) << "#!/bin/sh\n" << body;
  ::chmod(path.c_str(), 0755);
}

// Namespaces gt<PID>-N whose test process is gone (killed before its
// destructor ran).
void remove_stale_hosts() {
  ProcessResult r = run_merged({"ip", "netns", "list"});
  std::set<std::string> tags;
  std::size_t pos = 0;
  while ((pos = r.out.find("gt", pos)) != std::string::npos) {
    std::size_t end = pos + 2;
    while (end < r.out.size() && std::isdigit(static_cast<unsigned char>(r.out[end]))) ++end;
    bool at_line_start = pos == 0 || r.out[pos - 1] == '\n';
    if (at_line_start && end > pos + 2 && end < r.out.size() && r.out[end] == '-') {
      std::string pid = r.out.substr(pos + 2, end - pos - 2);
      if (::kill(std::stoi(pid), 0) != 0 && errno == ESRCH) tags.insert("gt" + pid);
    }
    pos = end;
  }
  for (const auto& tag : tags) run_merged({kScripts + "netns-down", tag});
}

}  // namespace

std::string netns_unavailable_reason() {
  if (::geteuid() != 0) return "test hosts need root (network namespaces, sshd)";
  std::string probe = "gtprobe" + std::to_string(::getpid());
  ProcessResult add = run_merged({"ip", "netns", "add", probe});
  if (!add.succeeded()) return "`ip netns add` is not permitted here: " + add.out;
  run_merged({"ip", "netns", "delete", probe});
  return "";
}

NetnsHosts::NetnsHosts(int count) {
  remove_stale_hosts();
  const int pid = static_cast<int>(::getpid());
  tag_ = "gt" + std::to_string(pid);
  subnet_ = "10." + std::to_string(100 + (pid / 256) % 150) + "." + std::to_string(pid % 256);
  dir_ = scratch_dir() + "/hosts";
  ::mkdir(dir_.c_str(), 0755);
  run_or_throw({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", tag_, "-f", dir_ + "/id_ed25519"});

  // One path for every host; the host's sshd says which host it is.
  std::string bin = dir_ + "/remote bin/it's";
  run_or_throw({"mkdir", "-p", bin});
  remote_gdrcheck_ = bin + "/gdrcheck";
  write_host_script(remote_gdrcheck_, "exec \"$GDRCHECK_TEST_HOST/gdrcheck\" \"$@\"\n");

  run_or_throw({kScripts + "netns-up", tag_, subnet_, std::to_string(count)});
  for (int n = 1; n <= count; ++n) {
    TestHost host;
    host.ns = tag_ + "-" + std::to_string(n);
    host.address = subnet_ + "." + std::to_string(n);
    host.dir = dir_ + "/" + std::to_string(n);
    ::mkdir(host.dir.c_str(), 0755);
    write_host_script(host.dir + "/gdrcheck", "echo 'no gdrcheck set up for this test host' >&2; exit 70\n");
    hosts_.push_back(host);
  }
}

NetnsHosts::~NetnsHosts() {
  run_merged({kScripts + "netns-down", tag_});
}

void NetnsHosts::start_sshd(int i) {
  const TestHost& h = host(i);
  run_or_throw({kScripts + "sshd-up", h.ns, h.dir, dir_ + "/id_ed25519.pub", "GDRCHECK_TEST_HOST=" + h.dir});
}

void NetnsHosts::stop_sshd(int i) {
  run_or_throw({kScripts + "sshd-down", host(i).dir});
}

void NetnsHosts::set_gdrcheck_script(int i, const std::string& body) {
  write_host_script(host(i).dir + "/gdrcheck", body);
}

std::string NetnsHosts::gdrcheck_on_root(const std::string& root) {
  return "exec '" + std::string(GDRCHECK_BINARY) + "' \"$@\" --root '" + root + "'\n";
}

void NetnsHosts::run_real_node(int i, const std::vector<std::string>& variants, const std::string& hostname) {
  std::string root = node_root("dgx-h100", variants);
  if (!hostname.empty()) {
    std::string own = host(i).dir + "/root";
    std::filesystem::remove_all(own);
    std::filesystem::copy(root, own,
                          std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
    for (const char* file : {"/etc/hostname", "/proc/sys/kernel/hostname"})
      std::ofstream(own + file) << hostname << "\n";
    root = own;
  }
  set_gdrcheck_script(i, gdrcheck_on_root(root));
}

std::vector<std::string> NetnsHosts::ssh_options() const {
  return {"IdentityFile=" + dir_ + "/id_ed25519", "UserKnownHostsFile=" + dir_ + "/known_hosts",
          "StrictHostKeyChecking=accept-new", "IdentitiesOnly=yes"};
}

}  // namespace gdrcheck::testing
