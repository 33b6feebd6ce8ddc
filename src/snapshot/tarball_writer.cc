#include "snapshot/tarball_writer.h"

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>

#include <ctime>
#include <memory>
#include <stdexcept>

#include "snapshot/snapshot_manifest.h"

namespace gdrcheck {
namespace {

struct ArchiveFree {
  void operator()(archive* a) const { archive_write_free(a); }
};
struct EntryFree {
  void operator()(archive_entry* e) const { archive_entry_free(e); }
};
using ArchivePtr = std::unique_ptr<archive, ArchiveFree>;

[[noreturn]] void fail(archive* a) {
  const char* why = archive_error_string(a);
  throw std::runtime_error(std::string("writing the snapshot: ") + (why ? why : "libarchive error"));
}

void add_entry(archive* a, const std::string& path, CapturedEntry::Type type, const std::string& data,
               std::time_t now) {
  std::unique_ptr<archive_entry, EntryFree> e(archive_entry_new());
  archive_entry_set_pathname(e.get(), path.c_str());
  archive_entry_set_mtime(e.get(), now, 0);
  archive_entry_set_uid(e.get(), 0);
  archive_entry_set_gid(e.get(), 0);
  switch (type) {
    case CapturedEntry::Type::Directory:
      archive_entry_set_filetype(e.get(), AE_IFDIR);
      archive_entry_set_perm(e.get(), 0755);
      break;
    case CapturedEntry::Type::Symlink:
      archive_entry_set_filetype(e.get(), AE_IFLNK);
      archive_entry_set_perm(e.get(), 0777);
      archive_entry_set_symlink(e.get(), data.c_str());
      break;
    case CapturedEntry::Type::File:
      archive_entry_set_filetype(e.get(), AE_IFREG);
      archive_entry_set_perm(e.get(), 0644);
      archive_entry_set_size(e.get(), static_cast<la_int64_t>(data.size()));
      break;
  }
  if (archive_write_header(a, e.get()) != ARCHIVE_OK) fail(a);
  if (type == CapturedEntry::Type::File && !data.empty() &&
      archive_write_data(a, data.data(), data.size()) != static_cast<la_ssize_t>(data.size()))
    fail(a);
}

}  // namespace

void write_snapshot_tarball(int fd, const std::string& manifest_text, const RootCapture& capture) {
  ArchivePtr a(archive_write_new());
  if (!a) throw std::runtime_error("writing the snapshot: out of memory");
  if (archive_write_add_filter_gzip(a.get()) != ARCHIVE_OK ||
      archive_write_set_format_pax_restricted(a.get()) != ARCHIVE_OK ||
      archive_write_open_fd(a.get(), fd) != ARCHIVE_OK)
    fail(a.get());
  std::time_t now = std::time(nullptr);
  add_entry(a.get(), kSnapshotManifestName, CapturedEntry::Type::File, manifest_text, now);
  for (const auto& e : capture.entries) add_entry(a.get(), e.path, e.type, e.data, now);
  if (archive_write_close(a.get()) != ARCHIVE_OK) fail(a.get());
}

}  // namespace gdrcheck
