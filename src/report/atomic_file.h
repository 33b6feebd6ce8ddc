// Replacing a file that another program reads at any moment (node_exporter's
// textfile collector scrapes PATH while gdrcheck writes it): the new content
// goes to PATH.tmp.XXXXXX in the same directory, created exclusively, never
// through a link, mode 0644 whatever the umask (the collector runs as an
// unprivileged user), flushed to disk, then rename()d over PATH. A reader
// sees the old file or the new one, never half of one; a failure leaves
// the old file as it was and removes the temporary file.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace gdrcheck {

// Writes `content` to `path` as above. Throws std::runtime_error naming the
// path and the cause ("cannot write /var/lib/x.prom: No space left on
// device"). A link at `path` itself is replaced, not followed; a directory
// at `path`, a missing directory or a path ending in '/' is an error.
void write_file_atomically(const std::string& path, std::string_view content);

// The same with the temporary names' suffixes chosen by `next_suffix` (one
// call per name tried) instead of at random: how tests plant a link at the
// very name that will be tried.
void write_file_atomically(const std::string& path, std::string_view content,
                           const std::function<std::string()>& next_suffix);

}  // namespace gdrcheck
