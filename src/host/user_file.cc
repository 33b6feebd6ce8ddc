#include "host/user_file.h"

#include <sys/stat.h>

#include <filesystem>

#include "host/root.h"
#include "topology/input_error.h"

namespace gdrcheck {

std::string read_user_file(const std::string& path, std::size_t limit, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw InputError(path, "is a directory, not a " + what);
  FileRead r = Root("/").read(std::filesystem::absolute(path).string(), limit);
  if (!r.ok()) throw InputError(path, r.problem());
  if (r.content.size() >= limit)
    throw InputError(path, "larger than " + std::to_string(limit >> 20) + " MiB; not a " + what);
  return r.content;
}

}  // namespace gdrcheck
