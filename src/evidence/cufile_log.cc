// Reader for cufile.log.
//
// libcufile writes " DD-MM-YYYY HH:MM:SS:mmm [pid=N tid=N] LEVEL  component:line
// message". Pastes add prompts, code fences, blank lines and collectors'
// prefixes, and users quote single lines without the timestamp ("ERROR
// cufio-fs:79 mount option not found ..."), so the line is found by its
// "[pid=" or by a level word followed by a component. The facts are read
// from message words only: source line numbers change with every release
// ("cufio-fs:199" in 1.9, "cufio-fs:204" in 1.15).
#include "evidence/cufile_log.h"

#include <algorithm>
#include <cctype>

#include "host/text_numbers.h"
#include "text/ascii.h"

namespace gdrcheck {
namespace {

constexpr std::size_t kMaxCufileLogLine = 4096;
constexpr std::size_t kMaxQuoted = 5;
constexpr std::size_t kMaxQuote = 300;
constexpr std::size_t kMaxPids = 4096;

std::string_view first_word(std::string_view s, std::string_view* rest) {
  s = ascii::trim(s);
  std::size_t end = 0;
  while (end < s.size() && !ascii::is_space(s[end])) ++end;
  *rest = ascii::trim(s.substr(end));
  return s.substr(0, end);
}

bool known_level(std::string_view w) {
  for (std::string_view l : {"ERROR", "WARN", "WARNING", "NOTICE", "INFO", "DEBUG", "TRACE"})
    if (w == l) return true;
  return false;
}

// "cufio-fs:199", "cufio_core:1648", "0:1072": a name, a colon, digits.
bool component_shape(std::string_view w) {
  std::size_t colon = w.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 >= w.size()) return false;
  for (char c : w.substr(colon + 1))
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

struct LogLine {
  std::string time;
  std::optional<long> pid;
  std::string level;
  std::string component;
  std::string_view message;
};

std::optional<LogLine> parse_line(std::string_view line) {
  LogLine out;
  std::string_view rest = line;
  if (std::size_t at = line.find("[pid="); at != std::string_view::npos) {
    // The timestamp is the two words before "[pid=" (a prefix may precede it).
    std::string_view before = ascii::trim(line.substr(0, at));
    std::size_t sp = before.rfind(' ');
    std::size_t sp2 =
        sp == std::string_view::npos ? std::string_view::npos : ascii::trim(before.substr(0, sp)).rfind(' ');
    out.time = std::string(sp2 == std::string_view::npos ? before : ascii::trim(before.substr(sp2 + 1)));
    out.pid = leading_number<long>(line.substr(at + 5));
    std::size_t close = line.find(']', at);
    if (close == std::string_view::npos) return std::nullopt;
    rest = line.substr(close + 1);
  }
  std::string_view after_level;
  std::string_view level = first_word(rest, &after_level);
  if (!known_level(level)) return std::nullopt;
  out.level = std::string(level == "WARNING" ? "WARN" : level);
  std::string_view after_component;
  std::string_view component = first_word(after_level, &after_component);
  if (component_shape(component)) {
    out.component = std::string(component);
    out.message = after_component;
  } else if (out.pid) {
    out.message = after_level;  // "[pid=..] ERROR message" without a component
  } else {
    return std::nullopt;  // a bare "ERROR ..." is too common in other text
  }
  return out;
}

// The first word after `key`, at most 64 bytes.
std::string short_word_after(std::string_view s, std::string_view key) {
  std::size_t at = s.find(key);
  if (at == std::string_view::npos) return "";
  std::string_view rest;
  std::string_view w = first_word(s.substr(at + key.size()), &rest);
  return std::string(w.substr(0, 64));
}

// The first fact a message shows; nullopt for lines that bear on nothing.
// The order matters: the compat notice names "GDS not supported", and the
// direct-path DEBUG line names O_DIRECT.
std::optional<CufileFact> classify_message(const LogLine& l) {
  std::string m = ascii::lower(l.message);
  bool error = l.level == "ERROR" || l.level == "WARN";
  if (ascii::contains(m, "gds path taken") || ascii::contains(m, "nvfs_io_submit")) return CufileFact::DirectPathTaken;
  if (ascii::contains(m, "force_compat") || ascii::contains(m, "forced compat") ||
      ascii::contains(m, "compat mode forced"))
    return CufileFact::CompatForced;
  if (ascii::contains(m, "compatible mode") || ascii::contains(m, "compat mode")) return CufileFact::CompatMode;
  if ((ascii::contains(m, "nvidia-fs") || ascii::contains(m, "nvidia_fs")) && ascii::contains(m, "not loaded"))
    return CufileFact::NvidiaFsNotLoaded;
  if (ascii::contains(m, "not registered with nvidia-fs") || ascii::contains(m, "not registered with nvidia_fs"))
    return CufileFact::StorageDriverNotRegistered;
  if (ascii::contains(m, "not supported on current file") || ascii::contains(m, "file system not supported") ||
      ascii::contains(m, "filesystem not supported"))
    return CufileFact::NotSupportedOnFile;
  if (ascii::contains(m, "cuinit failed") || ascii::contains(m, "cufile initialization failed") ||
      (error && ascii::contains(m, "cufiledriveropen")) || (error && ascii::contains(m, "driver open failed")))
    return CufileFact::DriverOpenFailed;
  if (error && (ascii::contains(m, "nvidia-fs") || ascii::contains(m, "nvidia_fs")) &&
      (ascii::contains(m, "open failed") || ascii::contains(m, "failed to open") ||
       ascii::contains(m, "unable to open")))
    return CufileFact::NvidiaFsOpenFailed;
  if (error && ascii::contains(m, "mismatch")) return CufileFact::VersionMismatch;
  if (ascii::contains(m, "inc-bar-usage failed") || (error && ascii::contains(m, "bar1") && ascii::contains(m, "fail")))
    return CufileFact::Bar1Exhausted;
  if (error && (ascii::contains(m, "map ioctl failed") || m == "map failed" ||
                ascii::contains(m, "error allocating nvfs handle") || ascii::contains(m, "cufilebufregister error")))
    return CufileFact::BufRegisterFailed;
  if (ascii::contains(m, "nvidia_peermem") && ascii::contains(m, "not loaded")) return CufileFact::PeerMemMissing;
  if (ascii::contains(m, "no matching pair for network device") ||
      (error && (ascii::contains(m, "rdma") || l.component.starts_with("cufio-rdma"))))
    return CufileFact::RdmaError;
  if (ascii::contains(m, "unsupported block device")) return CufileFact::BlockDeviceUnsupported;
  if (error && (ascii::contains(m, "udev") || ascii::contains(m, "volume attributes")))
    return CufileFact::DeviceAttributesUnreadable;
  if (error && (ascii::contains(m, "mount table") || ascii::contains(m, "mount option"))) return CufileFact::MountTable;
  if (error && (ascii::contains(m, "o_direct") || ascii::contains(m, "odirect"))) return CufileFact::ODirect;
  if (ascii::contains(m, "cufilehandleregister error")) return CufileFact::HandleRegisterFailed;
  if (l.level == "ERROR") return CufileFact::OtherError;
  if (ascii::contains(m, "nvidia_fs driver open invoked") || ascii::contains(m, "driver support ok"))
    return CufileFact::NvidiaFsOpened;
  return std::nullopt;
}

}  // namespace

const char* cufile_fact_code(CufileFact f) {
  switch (f) {
    case CufileFact::CompatMode:
      return "compat_mode";
    case CufileFact::CompatForced:
      return "compat_forced";
    case CufileFact::NvidiaFsNotLoaded:
      return "nvidia_fs_not_loaded";
    case CufileFact::NvidiaFsOpenFailed:
      return "nvidia_fs_open_failed";
    case CufileFact::StorageDriverNotRegistered:
      return "storage_driver_not_registered";
    case CufileFact::NotSupportedOnFile:
      return "not_supported_on_file";
    case CufileFact::DriverOpenFailed:
      return "driver_open_failed";
    case CufileFact::VersionMismatch:
      return "version_mismatch";
    case CufileFact::BufRegisterFailed:
      return "buffer_registration_failed";
    case CufileFact::Bar1Exhausted:
      return "bar1_exhausted";
    case CufileFact::PeerMemMissing:
      return "peer_memory_missing";
    case CufileFact::RdmaError:
      return "rdma_error";
    case CufileFact::BlockDeviceUnsupported:
      return "block_device_unsupported";
    case CufileFact::DeviceAttributesUnreadable:
      return "device_attributes_unreadable";
    case CufileFact::MountTable:
      return "mount_table";
    case CufileFact::ODirect:
      return "o_direct";
    case CufileFact::HandleRegisterFailed:
      return "handle_registration_failed";
    case CufileFact::OtherError:
      return "other_error";
    case CufileFact::DirectPathTaken:
      return "direct_path_taken";
    case CufileFact::NvidiaFsOpened:
      return "nvidia_fs_opened";
  }
  return "unknown";
}

const char* cufile_fact_meaning(CufileFact f) {
  switch (f) {
    case CufileFact::CompatMode:
      return "cuFile fell back to compat mode: reads and writes went through host memory with POSIX I/O, not "
             "GPUDirect Storage; the lines before it say why";
    case CufileFact::CompatForced:
      return "compat mode is forced (force_compat_mode / CUFILE_FORCE_COMPAT_MODE): no cuFile I/O is direct";
    case CufileFact::NvidiaFsNotLoaded:
      return "the nvidia-fs kernel module was not loaded: the nvfs routes (local NVMe, NVMe-oF, Lustre, NFS over "
             "RDMA, BeeGFS) cannot be direct; load it (modprobe nvidia-fs)";
    case CufileFact::NvidiaFsOpenFailed:
      return "libcufile could not open the nvidia-fs device: check /dev/nvidia-fs* and its permissions";
    case CufileFact::StorageDriverNotRegistered:
      return "the storage driver has not registered with nvidia-fs (an NVMe driver without GDS support, or loaded "
             "before nvidia-fs): its I/O cannot take the nvfs route";
    case CufileFact::NotSupportedOnFile:
      return "cuFile refused the file: GPUDirect Storage is not supported on its file system, mount or device, and "
             "the application got an error";
    case CufileFact::DriverOpenFailed:
      return "cuFile could not initialise (cuInit or the cuFile driver open failed): no cuFile I/O was possible in "
             "that process";
    case CufileFact::VersionMismatch:
      return "a version mismatch between libcufile, nvidia-fs, the CUDA driver or the runtime";
    case CufileFact::BufRegisterFailed:
      return "a GPU buffer could not be registered with nvidia-fs (its GPU memory could not be mapped for DMA): "
             "the direct path cannot reach GPU memory";
    case CufileFact::Bar1Exhausted:
      return "the GPU's BAR1 space ran out while registering a buffer: buffers larger than the free BAR1 cannot "
             "take the direct path (smaller buffers, or a GPU with a larger BAR1)";
    case CufileFact::PeerMemMissing:
      return "nvidia_peermem is not loaded: user-space RDMA (WekaFS, GPFS) is disabled unless "
             "properties.rdma_peer_type is dmabuf";
    case CufileFact::RdmaError:
      return "an RDMA set-up error: cuFile found no RDMA NIC to pair with the GPU (properties.rdma_dev_addr_list "
             "and the NICs near each GPU)";
    case CufileFact::BlockDeviceUnsupported:
      return "the file is on a block device the direct path does not support (device-mapper: LVM, dm-crypt, "
             "multipath)";
    case CufileFact::DeviceAttributesUnreadable:
      return "cuFile could not read the block device's attributes from udev (a container without the host's "
             "/run/udev, or a device or file system it does not know)";
    case CufileFact::MountTable:
      return "cuFile did not find the device's mount options in the mount table";
    case CufileFact::ODirect:
      return "an O_DIRECT problem: the direct path needs the file opened with O_DIRECT";
    case CufileFact::HandleRegisterFailed:
      return "cuFileHandleRegister failed: the file could not be used with cuFile";
    case CufileFact::OtherError:
      return "other ERROR lines";
    case CufileFact::DirectPathTaken:
      return "the direct path was taken: I/O submitted to nvidia-fs with O_DIRECT";
    case CufileFact::NvidiaFsOpened:
      return "libcufile opened the nvidia-fs driver and found driver support";
  }
  return "";
}

const CufileFinding* CufileLogReport::find(CufileFact f) const {
  for (const auto& x : findings)
    if (x.fact == f) return &x;
  return nullptr;
}

void CufileLogParser::add(CufileFact f, std::string_view line) {
  auto it = std::find_if(r_.findings.begin(), r_.findings.end(), [&](const auto& x) { return x.fact == f; });
  if (it == r_.findings.end()) {
    r_.findings.push_back({f, 0, {}, {}});
    it = r_.findings.end() - 1;
  }
  ++it->count;
  if (it->lines.size() < kMaxQuoted) {
    it->lines.push_back(r_.lines);
    it->quotes.emplace_back(ascii::trim(line).substr(0, kMaxQuote));
  }
}

void CufileLogParser::feed(std::string_view raw) {
  ++r_.lines;
  if (raw.size() > kMaxCufileLogLine) raw = raw.substr(0, kMaxCufileLogLine);
  auto l = parse_line(raw);
  if (!l) return;
  ++r_.log_lines;
  if (r_.levels.size() < 16 || r_.levels.count(l->level)) ++r_.levels[l->level];
  if (!l->time.empty()) {
    if (r_.first_time.empty()) r_.first_time = l->time.substr(0, 64);
    r_.last_time = l->time.substr(0, 64);
  }
  if (l->pid) {
    auto at = std::lower_bound(pids_.begin(), pids_.end(), *l->pid);
    if ((at == pids_.end() || *at != *l->pid) && pids_.size() < kMaxPids) pids_.insert(at, *l->pid);
  }
  if (std::string v = short_word_after(l->message, "GDS release version:"); !v.empty()) r_.gds_version = v;
  if (std::string v = short_word_after(l->message, "nvidia_fs version:"); !v.empty()) r_.nvidia_fs_version = v;
  if (std::string v = short_word_after(l->message, "libcufile version:"); !v.empty()) r_.libcufile_version = v;
  if (auto f = classify_message(*l)) add(*f, raw);
}

CufileLogReport CufileLogParser::finish() {
  r_.processes = pids_.size();
  if (r_.log_lines == 0) r_.notes.push_back("no cuFile log line found");
  return std::move(r_);
}

CufileLogReport parse_cufile_log(std::string_view text) {
  CufileLogParser p;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    p.feed(line);
    start = end + 1;
  }
  return p.finish();
}

bool looks_like_cufile_log(std::string_view head) {
  std::size_t start = 0, seen = 0;
  while (start < head.size()) {
    std::size_t end = std::min(head.find('\n', start), head.size());
    std::string_view line = head.substr(start, std::min<std::size_t>(end - start, kMaxCufileLogLine));
    start = end + 1;
    auto l = parse_line(line);
    if (!l) continue;
    if (l->pid && !l->component.empty()) return true;  // the full shape: one line is enough
    if (++seen >= 2) return true;
  }
  return false;
}

}  // namespace gdrcheck
