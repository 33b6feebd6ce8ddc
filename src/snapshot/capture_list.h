// What `gdrcheck snapshot` copies from a host: an explicit allow-list of
// the files, directories and links the readers open (host/host_state,
// topology/hwloc_source through hwloc, the NCCL readers, capture_extent's
// areas). Nothing outside it is ever read: a snapshot is sent to other
// people, so /proc/<pid>, /home, keys and the environment must not be in it
// by accident. A reader that starts to open a new file needs a line here.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gdrcheck {

// How a matching regular file is kept.
enum class CaptureAs {
  Content,   // its bytes, at most max_bytes (what the reader reads)
  NameOnly,  // an empty file: the readers only ask that it exists (a 200 MiB libnccl.so)
};

struct CaptureRule {
  // A path inside the root without the leading '/'. '*' and '?' match
  // within one component (fnmatch); a "**" component matches any number
  // of components, including none.
  std::string pattern;
  CaptureAs as = CaptureAs::Content;
  std::size_t max_bytes = 64 * 1024;
  // Whether a host is expected to have it: an absent expected path is
  // listed as missing; the NCCL search places mostly hold nothing.
  bool expected = true;
  // Kept only when its bytes start with '<' (after blanks): for a file a
  // setting names (NCCL_TOPO_FILE), so that a conf line pointing at
  // /etc/shadow cannot put it in a snapshot.
  bool xml_only = false;
};

// Every rule, in one place.
const std::vector<CaptureRule>& capture_rules();

// The rule `path` ("sys/bus/pci/devices/0000:17:00.0") matches, or nullptr
// when it is not on the list.
const CaptureRule* capture_rule_for(std::string_view path);

// Whether a directory at `path` can hold something on the list: the walk
// descends only into those.
bool may_hold_captured(std::string_view path);

// The expected rules without wildcards ("proc/cmdline"): a path of these
// that is absent is listed as missing in the manifest.
std::vector<std::string> literal_capture_paths();

// One capture's rules: capture_rules() and what a host's own configuration
// adds (site_capture_rules.h), matched as one list.
class CaptureList {
 public:
  explicit CaptureList(std::vector<CaptureRule> rules);
  CaptureList(const CaptureList&) = delete;  // split_ views into rules_
  CaptureList& operator=(const CaptureList&) = delete;

  // As capture_rule_for(), may_hold_captured(), literal_capture_paths().
  const CaptureRule* rule_for(std::string_view path) const;
  bool may_hold(std::string_view path) const;
  std::vector<std::string> literal_paths() const;

 private:
  std::vector<CaptureRule> rules_;
  std::vector<std::vector<std::string_view>> split_;
};

// capture_rules() as a CaptureList.
const CaptureList& standard_capture_list();

// Whether `pattern` (capture_rules() syntax) matches `path`.
bool capture_pattern_matches(std::string_view pattern, std::string_view path);

}  // namespace gdrcheck
