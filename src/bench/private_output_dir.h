// Where `bench` keeps what its engines print: a directory gdrcheck creates
// itself (mkdtemp, mode 0700) inside --output-dir, so no other user can
// plant a link or a file under a name gdrcheck is about to hand a child
// (perftest opens its --out_json_file with fopen "w", which follows links
// and truncates). Files gdrcheck names are reserved before a child sees
// them, and read back without following links, only when they are regular
// files this process owns, and only up to a size cap.
#pragma once

#include <cstddef>
#include <string>

namespace gdrcheck {

// Creates "<base>/<stem>-XXXXXX" with mode 0700 and returns its path.
// Throws InputError(base, why) when it cannot.
std::string make_private_output_dir(const std::string& base, const std::string& stem);

// Creates `path` empty (O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600), so the name
// is ours before a child opens it. "" on success, else why not (naming it).
std::string reserve_output_file(const std::string& path);

// Opens `path` for reading without following a link; it must be a regular
// file owned by this process's user. The descriptor (close-on-exec) or -1
// with `problem` naming the file and the reason.
int open_own_output(const std::string& path, std::string& problem);

struct OwnOutput {
  std::string content;
  std::string problem;  // "" when read whole
};

// open_own_output, then the whole content; a file of `cap` bytes or more is
// a problem, not a truncated read.
OwnOutput read_own_output(const std::string& path, std::size_t cap);

}  // namespace gdrcheck
