// Test hosts on this machine: each one a network namespace with its own
// address on a private bridge, and (when started) a real sshd that lets in
// one per-test key. The hosts share the file system; what makes them differ
// is the environment their sshd gives each session (GDRCHECK_TEST_HOST =
// the host's own directory), which the one remote gdrcheck path of every
// host (remote_gdrcheck()) follows to that host's own gdrcheck script.
//
// Set-up and tear-down are the scripts in scripts/test-hosts/; everything
// (sshd and any session still running, namespaces, links, files) is removed
// by the destructor, and namespaces left by a test process that was killed
// are removed by the next one.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace gdrcheck::testing {

// How long a test gives a real node (run_real_node) to answer over ssh or
// pdsh. It answers in about a second on a quick machine; on a loaded slow
// 2-core one a release gdrcheck took over 8 s and a sanitized one over 6 s.
inline constexpr std::chrono::seconds kRealNodeTimeout{20};
// The gdrcheck script of a host that hangs: it sleeps well past
// kRealNodeTimeout, so "timed out" is what the launcher must report.
inline constexpr const char* kHangingScript = "sleep 60\n";

// "" when test hosts can be made here; else why not (not root, or `ip
// netns` not permitted — e.g. in an unprivileged container).
std::string netns_unavailable_reason();

struct TestHost {
  std::string ns;       // network namespace
  std::string address;  // IPv4 address on the test bridge
  std::string dir;      // sshd config, key, log; this host's gdrcheck script
};

class NetnsHosts {
 public:
  // Creates `count` hosts; throws std::runtime_error with the scripts'
  // output when the set-up fails (after removing what was made).
  explicit NetnsHosts(int count);
  ~NetnsHosts();
  NetnsHosts(const NetnsHosts&) = delete;
  NetnsHosts& operator=(const NetnsHosts&) = delete;

  const TestHost& host(int i) const { return hosts_.at(static_cast<std::size_t>(i)); }
  int size() const { return static_cast<int>(hosts_.size()); }
  // The private /24 the hosts are on, e.g. "10.140.17".
  const std::string& subnet() const { return subnet_; }
  const std::string& tag() const { return tag_; }

  // Starts (stops) the real sshd of host i; throws on failure.
  void start_sshd(int i);
  void stop_sshd(int i);

  // What host i runs when anything runs `remote_gdrcheck()` there: a shell
  // script with this body (after "#!/bin/sh").
  void set_gdrcheck_script(int i, const std::string& body);
  // A script body that runs the real gdrcheck on a recorded root.
  static std::string gdrcheck_on_root(const std::string& root);
  // Host i runs the real gdrcheck on a built DGX H100 root with these
  // fixture variants (none = healthy; "peermem-missing", "acs-redirect").
  // With `hostname`, the host reads its own copy of the built root whose
  // host name is that (as a node's kernel would report its own name).
  void run_real_node(int i, const std::vector<std::string>& variants = {}, const std::string& hostname = "");

  // The path every host is asked to run. It lies under a directory whose
  // name holds a space and a single quote, so every run also tests the
  // remote quoting.
  const std::string& remote_gdrcheck() const { return remote_gdrcheck_; }

  // ssh -o options a client needs: the per-test key and known_hosts.
  std::vector<std::string> ssh_options() const;

 private:
  std::string tag_, subnet_, dir_, remote_gdrcheck_;
  std::vector<TestHost> hosts_;
};

}  // namespace gdrcheck::testing
