// Reader for cuFile's log (`cufile.log`, written by libcufile in the
// application's working directory or logging.dir): lines such as
//   " 07-11-2023 16:58:54:420 [pid=45874 tid=45874] ERROR  cufio-fs:199 NVMe Driver not registered with nvidia-fs!!!"
// Each line is level, component ("cufio-fs:199", "0:1072") and message;
// the messages that decide whether GPUDirect Storage could work are
// sorted into facts, each with its lines.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gdrcheck {

// What a message says about the direct path. The list comes from the
// messages real logs carry (tests/data/gds/cufile-log) and the cuFile
// error codes; it matches on message words, not on source line numbers,
// which move between releases.
enum class CufileFact {
  CompatMode,                  // "running in compatible mode", "... posix read/write with compat mode enabled"
  CompatForced,                // force_compat_mode named in a message
  NvidiaFsNotLoaded,           // "nvidia-fs.ko driver not loaded"
  NvidiaFsOpenFailed,          // nvidia-fs named with an open failure
  StorageDriverNotRegistered,  // "NVMe Driver not registered with nvidia-fs!!!"
  NotSupportedOnFile,          // "GPUDirect Storage not supported on current file"
  DriverOpenFailed,            // "cuInit Failed ...", "cuFile initialization failed", cuFileDriverOpen errors
  VersionMismatch,             // "... mismatch" in an ERROR/WARN line
  BufRegisterFailed,       // "nvidia-fs MAP ioctl failed", "error allocating nvfs handle", "cuFileBufRegister error"
  Bar1Exhausted,           // "Inc-bar-usage failed: size ... remaining bytes ..."
  PeerMemMissing,          // "nvidia_peermem.ko is not loaded. Disabling UserSpace RDMA access."
  RdmaError,               // "No matching pair for network device to closest GPU", RDMA ERROR lines
  BlockDeviceUnsupported,  // "Unsupported block device: /dev/dm-0"
  DeviceAttributesUnreadable,  // "error creating udev_device ...", "error getting volume attributes ..."
  MountTable,                  // "mount options not specified for device in mount table ..."
  ODirect,                     // an ERROR/WARN line about O_DIRECT
  HandleRegisterFailed,        // "cuFileHandleRegister error ..."
  OtherError,                  // any other ERROR line
  DirectPathTaken,             // "gds path taken with ODIRECT fd", "nvfs_io_submit ..." (DEBUG/TRACE)
  NvidiaFsOpened,              // "nvidia_fs driver open invoked", "NVMe: driver support OK" (INFO)
};

// "compat_mode", "nvidia_fs_not_loaded", ...: stable codes for JSON.
const char* cufile_fact_code(CufileFact f);
// What the fact means for the direct path and what to do, one sentence.
const char* cufile_fact_meaning(CufileFact f);

// Where a fact's lines come from: at most kMaxQuoted lines are kept, each
// cut to a few hundred bytes; `count` counts them all.
struct CufileFinding {
  CufileFact fact{};
  std::size_t count = 0;
  std::vector<std::size_t> lines;   // 1-based, the first few
  std::vector<std::string> quotes;  // those lines as written (escape before printing)
};

struct CufileLogReport {
  std::size_t lines = 0;                                          // of the file
  std::size_t log_lines = 0;                                      // that read as cuFile log lines
  std::map<std::string, std::size_t> levels;                      // "ERROR" → 12, "NOTICE" → 3
  std::size_t processes = 0;                                      // distinct pids (counted up to a cap)
  std::string first_time, last_time;                              // as printed: "02-11-2023 11:42:01:926"
  std::string gds_version, nvidia_fs_version, libcufile_version;  // from INFO lines
  std::vector<CufileFinding> findings;                            // in the order first seen
  std::vector<std::string> notes;

  const CufileFinding* find(CufileFact f) const;
};

// True when the text holds a line in cufile.log's shape.
bool looks_like_cufile_log(std::string_view head);

// Fed one line at a time (a log may be many MB): memory is bounded by the
// caps, never by the number of lines. Never throws.
class CufileLogParser {
 public:
  void feed(std::string_view line);
  CufileLogReport finish();

 private:
  void add(CufileFact f, std::string_view line);
  CufileLogReport r_;
  std::vector<long> pids_;  // sorted, capped
};

CufileLogReport parse_cufile_log(std::string_view text);

}  // namespace gdrcheck
