// `gds.gdscheck`: what `gdscheck -p` saw when it ran, against what the files
// say is installed and configured (platform-spec §5.3). gdscheck asks
// libcufile at run time; the files are read now, perhaps on a recorded
// root. A fact both sides state either agrees or differs; a difference is a
// WARNING, never more, because either side may simply be older than the
// other (gdscheck run on another machine, before a module was reloaded, or
// with another CUFILE_ENV_PATH_JSON). A fact only one side states is not
// compared, and the evidence says so.
#include <algorithm>
#include <cctype>
#include <charconv>

#include "checks/gds_checks.h"
#include "host/capture_extent.h"
#include "host/text_format.h"
#include "text/ascii.h"

namespace gdrcheck {
namespace {

const char* const kCheck = "gds.gdscheck";
const char* const kRerun =
    "run gdscheck -p again on this node and gdrcheck gds at the same time: what both say then is what holds";

// A gdscheck line as printed, for evidence: file: "key : value".
std::string quoted(const std::string& file, const std::string& key, const std::string& value) {
  return printable(file) + ": \"" + printable(key) + " : " + printable(value) + "\"";
}

// "2.26.6", "version: 2.26", "2.26" → {2, 26}. gdscheck prints only
// major.minor, so that is all that can be compared.
std::optional<std::pair<long, long>> major_minor(std::string_view v) {
  if (auto colon = v.find(':'); colon != std::string_view::npos) v.remove_prefix(colon + 1);
  std::string t(ascii::trim(v));
  long major = 0, minor = 0;
  const char* end = t.data() + t.size();
  auto a = std::from_chars(t.data(), end, major);
  if (a.ec != std::errc() || a.ptr == end || *a.ptr != '.') return std::nullopt;
  auto b = std::from_chars(a.ptr + 1, end, minor);
  if (b.ec != std::errc()) return std::nullopt;
  return std::pair{major, minor};
}

// What the comparisons leave behind: agreements (one OK finding), the facts
// only one side states, and one WARNING per difference.
struct Comparison {
  std::vector<std::string> agreed;
  std::vector<std::string> not_compared;
  std::vector<Finding> differences;
  bool nvidia_fs_differs = false;  // then every nvfs transport differs too: said once

  void differ(const std::string& subject, const std::string& summary, std::vector<std::string> ev,
              const std::string& fix) {
    differences.push_back(problem(kCheck, subject, Status::Warning, summary, std::move(ev), fix));
  }
};

// --- nvidia-fs: loaded, and its version ---------------------------------

// Whether gdscheck saw nvidia-fs: a "nvidia_fs version" means loaded; a
// header ("GDS release version") without one means not loaded (GDS 1.16
// then prints only the minimum version). A paste that starts after the
// header says nothing.
std::optional<bool> gdscheck_saw_nvidia_fs(const GdscheckReport& p) {
  if (!p.nvidia_fs_version.empty()) return true;
  if (!p.gds_version.empty()) return false;
  return std::nullopt;
}

void compare_nvidia_fs(const GdsState& g, const GdscheckReport& p, const std::string& file, Comparison& c) {
  std::optional<bool> saw = gdscheck_saw_nvidia_fs(p);
  if (!saw) {
    c.not_compared.push_back("nvidia-fs: " + printable(file) +
                             " has no \"GDS release version\" / \"nvidia_fs version\" lines");
    return;
  }
  if (auto area = uncaptured_area(g.uncaptured, "/sys/module/nvidia_fs")) {
    c.not_compared.push_back("nvidia-fs: " + not_captured_evidence(*area));
    return;
  }
  const std::string gd_line =
      *saw ? printable(file) + ": \"nvidia_fs version: " + printable(p.nvidia_fs_version) + "\""
           : printable(file) + ": no \"nvidia_fs version\" after \"GDS release version: " + printable(p.gds_version) +
                 "\"";
  if (!*saw && !g.nvidia_fs_loaded) {
    c.agreed.push_back("nvidia-fs not loaded: " + gd_line + "; /sys/module/nvidia_fs: not found");
    return;
  }
  c.nvidia_fs_differs = *saw != g.nvidia_fs_loaded;
  if (!*saw) {
    c.differ("nvidia-fs",
             "gdscheck saw no nvidia-fs, but the files show it loaded: it was loaded after gdscheck ran, or "
             "gdscheck ran on another machine",
             {gd_line, "/sys/module/nvidia_fs: present", printable(g.module_version.evidence())}, kRerun);
    return;
  }
  if (!g.nvidia_fs_loaded) {
    c.differ("nvidia-fs",
             "gdscheck saw nvidia-fs " + printable(p.nvidia_fs_version) +
                 ", but the files show it not loaded: it was unloaded after gdscheck ran, or gdscheck ran on another "
                 "machine; without it the nvfs routes gdscheck reported go through compat mode",
             {gd_line, "/sys/module/nvidia_fs: not found"}, kRerun);
    return;
  }
  // Both saw it loaded: the versions, major.minor only.
  const Fact& f = g.module_version.value ? g.module_version : g.proc_version;
  auto gd = major_minor(p.nvidia_fs_version);
  auto fv = f.value ? major_minor(*f.value) : std::nullopt;
  if (!gd || !fv) {
    c.agreed.push_back("nvidia-fs loaded: " + gd_line + "; /sys/module/nvidia_fs: present");
    c.not_compared.push_back("nvidia-fs version: " + (gd ? printable(f.evidence()) : gd_line) +
                             " (no major.minor to compare)");
    return;
  }
  if (*gd == *fv) {
    c.agreed.push_back("nvidia-fs " + std::to_string(gd->first) + "." + std::to_string(gd->second) + ": " + gd_line +
                       "; " + printable(f.evidence()) + " (major.minor compared: gdscheck prints no patch level)");
    return;
  }
  c.differ("nvidia-fs version",
           "gdscheck saw nvidia-fs " + printable(p.nvidia_fs_version) + ", the files show " + printable(*f.value) +
               ": the module was upgraded or reloaded after gdscheck ran, or gdscheck ran on another machine",
           {gd_line, printable(f.evidence()), "major.minor compared: gdscheck prints no patch level"}, kRerun);
}

// --- compat mode and P2PDMA: CUFILE CONFIGURATION against cufile.json ----

// The key gdscheck printed for a property (allow_compat_mode has the older
// name use_compat_mode) and its value as printed.
std::optional<std::pair<std::string, std::string>> printed_property(const GdscheckReport& p,
                                                                    std::initializer_list<const char*> keys) {
  for (const char* key : keys)
    for (const auto& [k, v] : p.cufile_config)
      if (ascii::lower(k) == key) return std::pair{k, v};
  return std::nullopt;
}

void compare_property(const std::string& name, std::optional<bool> gd, std::initializer_list<const char*> keys,
                      std::optional<bool> file_value, const std::string& file_key, const CufileConfig& config,
                      const GdscheckReport& p, const std::string& file, Comparison& c) {
  auto printed = printed_property(p, keys);
  const std::string cfg = printable(config.file);
  if (!gd && !file_value) return;  // neither states it: nothing to say
  if (!gd || !printed) {
    c.not_compared.push_back(name + ": only " + cfg + " sets it (" + (*file_value ? "true" : "false") +
                             "); gdscheck printed no value for it");
    return;
  }
  if (!file_value) {
    c.not_compared.push_back(name + ": only gdscheck states it (" + quoted(file, printed->first, printed->second) +
                             "); " + cfg + " does not set it, so libcufile's built-in default applies");
    return;
  }
  const std::string file_ev = cfg + ": " + printable(file_key) + " = " + (*file_value ? "true" : "false");
  const std::string gd_ev = quoted(file, printed->first, printed->second);
  if (*gd == *file_value) {
    c.agreed.push_back(name + " " + (*gd ? "true" : "false") + ": " + gd_ev + "; " + file_ev);
    return;
  }
  c.differ(name,
           "gdscheck ran with " + name + " " + (*gd ? "true" : "false") + ", but " + cfg + " sets it " +
               (*file_value ? "true" : "false") +
               ": gdscheck read another configuration (CUFILE_ENV_PATH_JSON named another file when it ran), the file "
               "was edited after gdscheck ran, or gdscheck ran on another machine",
           {gd_ev, file_ev},
           "run gdscheck -p with the job's CUFILE_ENV_PATH_JSON, and give the same file to gdrcheck gds with --env "
           "CUFILE_ENV_PATH_JSON=PATH");
}

// gdscheck's ENVIRONMENT shows CUFILE_ENV_PATH_JSON when it was set: the
// file it read, against the one the files point to.
void compare_config_path(const GdsState& g, const GdscheckReport& p, const std::string& file, Comparison& c) {
  auto env = std::find_if(p.environment.begin(), p.environment.end(),
                          [](const auto& kv) { return kv.first == "CUFILE_ENV_PATH_JSON"; });
  if (env == p.environment.end()) return;
  const std::string gd_ev = quoted(file, env->first, env->second);
  if (!g.cufile_path) {
    c.not_compared.push_back("cuFile configuration: only gdscheck names one (" + gd_ev + "); the files hold none");
    return;
  }
  if (env->second == *g.cufile_path) {
    c.agreed.push_back("cuFile configuration " + printable(*g.cufile_path) + ": " + gd_ev);
    return;
  }
  c.differ("cufile.json",
           "gdscheck read its configuration from " + printable(env->second) + ", the files' is " +
               printable(*g.cufile_path) + ": the compat mode values of the two come from different files",
           {gd_ev, "configuration the files point to: " + printable(*g.cufile_path)},
           "give gdrcheck gds the file gdscheck read: --env CUFILE_ENV_PATH_JSON=" + printable(env->second));
}

void compare_configuration(const GdsState& g, const std::optional<CufileConfig>& config, const GdscheckReport& p,
                           const std::string& file, Comparison& c) {
  compare_config_path(g, p, file, c);
  if (!config) {
    if (p.compat_mode || p.force_compat_mode || p.use_pci_p2pdma)
      c.not_compared.push_back(
          "compat mode, use_pci_p2pdma: only gdscheck states them; the files hold no cuFile "
          "configuration that could be read");
    return;
  }
  if (!config->parsed) {
    c.not_compared.push_back("compat mode, use_pci_p2pdma: " + printable(config->file) + " does not parse (" +
                             printable(config->error) + "), so libcufile runs with its built-in defaults");
    return;
  }
  compare_property("allow_compat_mode", p.compat_mode, {"properties.allow_compat_mode", "properties.use_compat_mode"},
                   config->allow_compat_mode,
                   config->allow_compat_key.empty() ? "properties.allow_compat_mode" : config->allow_compat_key,
                   *config, p, file, c);
  compare_property("force_compat_mode", p.force_compat_mode, {"properties.force_compat_mode"},
                   config->force_compat_mode, "properties.force_compat_mode", *config, p, file, c);
  compare_property("use_pci_p2pdma", p.use_pci_p2pdma, {"properties.use_pci_p2pdma"}, config->use_pci_p2pdma,
                   "properties.use_pci_p2pdma", *config, p, file, c);
}

// --- transports: DRIVER CONFIGURATION against /proc/driver/nvidia-fs/modules

// Each gdscheck transport carried by nvidia-fs and the storage driver that
// registers with it for that transport (platform-spec §5.1, §5.3; the
// names nvidia-fs prints). The 0.9 beta printed LUSTRE and upper-case
// names. WekaFS and IBM Spectrum Scale also have a user-space RDMA route
// that needs no registration, and nvidia-fs lists wekafsio whether or not
// it is used, so those two are compared only when gdscheck names the nvfs
// route itself (GDS 1.16's "nvfs" token).
struct NvfsTransport {
  const char* row;     // gdscheck's row, lower case
  const char* driver;  // /proc/driver/nvidia-fs/modules name
  bool user_space_rdma;
};
constexpr NvfsTransport kTransports[] = {
    {"nvme", "nvme", false},
    {"nvmeof", "nvme_rdma", false},
    {"scsi", "scsi_mod", false},
    {"scaleflux csd", "sfxvdriver", false},
    {"nvmesh", "nvmeib_common", false},
    {"ddn exascaler", "lnet", false},
    {"lustre", "lnet", false},
    {"nfs", "rpcrdma", false},
    {"beegfs", "beegfs", false},
    {"scatefs", "scatefs", false},
    {"ibm spectrum scale", "mmfslinux", true},
    {"wekafs", "wekafsio", true},
};

const NvfsTransport* nvfs_transport(const std::string& row) {
  std::string l = ascii::lower(row);
  for (const auto& t : kTransports)
    if (l == t.row) return &t;
  return nullptr;
}

// Whether a row's value names the nvfs route: "Supported" before GDS 1.16
// (the PCI-P2PDMA route had its own "NVMe P2PDMA" row), the "nvfs" token
// after.
struct RowRoute {
  bool nvfs = false;
  bool token = false;  // the value is a route token list, not Supported/Unsupported
};

RowRoute row_route(const std::string& value) {
  std::string v = ascii::lower(ascii::trim(value));
  if (v == "supported") return {true, false};
  if (v == "unsupported") return {false, false};
  RowRoute r{false, true};
  std::size_t i = 0;
  while (i <= v.size()) {
    std::size_t j = std::min(v.find(',', i), v.size());
    if (ascii::trim(std::string_view(v).substr(i, j - i)) == "nvfs") r.nvfs = true;
    i = j + 1;
  }
  return r;
}

// The storage drivers registered with nvidia-fs as the files show them;
// nullopt (with the reason in `why`) when the files cannot tell.
std::optional<std::vector<NvidiaFsBackend>> registered_backends(const GdsState& g, std::string& why) {
  for (const char* path : {"/sys/module/nvidia_fs", "/proc/driver/nvidia-fs/modules"})
    if (auto area = uncaptured_area(g.uncaptured, path)) {
      why = not_captured_evidence(*area);
      return std::nullopt;
    }
  if (!g.nvidia_fs_loaded) return std::vector<NvidiaFsBackend>{};  // nothing registers without the module
  if (!g.backends) {
    why = "/proc/driver/nvidia-fs/modules: " + printable(g.backends_problem);
    return std::nullopt;
  }
  return g.backends;
}

void compare_transports(const GdsState& g, const GdscheckReport& p, const std::string& file, Comparison& c) {
  if (p.transports.empty()) {
    c.not_compared.push_back("transports: " + printable(file) + " has no DRIVER CONFIGURATION rows");
    return;
  }
  if (c.nvidia_fs_differs) {
    c.not_compared.push_back(
        "transports: nvidia-fs is loaded on one side only (the nvidia-fs finding), so every "
        "nvfs route differs with it");
    return;
  }
  std::string why;
  auto drivers = registered_backends(g, why);
  if (!drivers) {
    c.not_compared.push_back("transports: " + why);
    return;
  }
  const std::string where =
      g.nvidia_fs_loaded ? std::string("/proc/driver/nvidia-fs/modules") : std::string("nvidia-fs not loaded");
  std::vector<std::string> both_nvfs, neither, other_routes, user_space;
  for (const auto& [row, value] : p.transports) {
    const NvfsTransport* t = nvfs_transport(row);
    if (!t) {
      other_routes.push_back(printable(row));
      continue;
    }
    RowRoute route = row_route(value);
    auto reg =
        std::find_if(drivers->begin(), drivers->end(), [&](const NvidiaFsBackend& b) { return b.name == t->driver; });
    bool is_registered = reg != drivers->end();
    const std::string pair = printable(row) + " (" + t->driver + ")";
    if (t->user_space_rdma && !route.nvfs) {
      user_space.push_back(pair);
      continue;
    }
    if (route.nvfs == is_registered) {
      (route.nvfs ? both_nvfs : neither).push_back(pair);
      continue;
    }
    const std::string gd_ev = quoted(file, row, value);
    if (route.nvfs)
      c.differ(printable(row),
               "gdscheck reported the nvfs route for " + printable(row) + ", but " + t->driver +
                   " is not registered with nvidia-fs in the files: the storage driver was reloaded without its GDS "
                   "support (or before nvidia-fs) after gdscheck ran, or gdscheck ran on another machine",
               {gd_ev, where + ": no " + std::string(t->driver)},
               "load the GDS-enabled " + std::string(t->driver) + " after nvidia-fs; " + kRerun);
    else
      c.differ(
          printable(row),
          "gdscheck reported no nvfs route for " + printable(row) + " (" + printable(value) + "), but " + t->driver +
              " is registered with nvidia-fs in the files: it registered after gdscheck ran, or gdscheck ran on "
              "another machine",
          {gd_ev, where + ": " + printable(reg->name) + (reg->version.empty() ? "" : ": " + printable(reg->version))},
          kRerun);
  }
  if (!both_nvfs.empty())
    c.agreed.push_back("nvfs route, registered with nvidia-fs (" + where + "): " + join(both_nvfs));
  if (!neither.empty()) c.agreed.push_back("no nvfs route, not registered (" + where + "): " + join(neither));
  if (!user_space.empty())
    c.not_compared.push_back(
        "transports with a user-space RDMA route (" + join(user_space) +
        "): that route needs no registration with nvidia-fs, and nvidia-fs lists wekafsio whether or not it is used; "
        "compared only when gdscheck names the nvfs route");
  if (!other_routes.empty())
    c.not_compared.push_back("transports nvidia-fs does not carry (" + join(other_routes) +
                             "): PCI-P2PDMA, virtiofs and user-space RDMA are judged by gds.p2pdma and gds.mount");
}

// --- ACS: gdscheck's ACS lines against /proc/driver/nvidia-fs/bridges -----

bool hex(char ch) {
  return std::isxdigit(static_cast<unsigned char>(ch)) != 0;
}

// The PCI addresses in a line, lower case with the domain ("02:00.0" →
// "0000:02:00.0"); the trimmed line itself when it holds none.
std::vector<std::string> addresses_in(const std::string& line) {
  std::vector<std::string> out;
  const std::string l = ascii::lower(line);
  for (std::size_t i = 0; i + 7 <= l.size(); ++i) {
    if (i > 0 && (hex(l[i - 1]) || l[i - 1] == ':')) continue;
    auto bus_dev_fn = [&](std::size_t at) {
      return at + 7 <= l.size() && hex(l[at]) && hex(l[at + 1]) && l[at + 2] == ':' && hex(l[at + 3]) &&
             hex(l[at + 4]) && l[at + 5] == '.' && l[at + 6] >= '0' && l[at + 6] <= '7';
    };
    if (i + 12 <= l.size() && hex(l[i]) && hex(l[i + 1]) && hex(l[i + 2]) && hex(l[i + 3]) && l[i + 4] == ':' &&
        bus_dev_fn(i + 5)) {
      out.push_back(l.substr(i, 12));
      i += 11;
    } else if (bus_dev_fn(i)) {
      out.push_back("0000:" + l.substr(i, 7));
      i += 6;
    }
  }
  if (out.empty() && !ascii::trim(l).empty()) out.emplace_back(ascii::trim(l));
  return out;
}

std::vector<std::string> address_set(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  for (const auto& line : lines)
    for (auto& a : addresses_in(line)) out.push_back(std::move(a));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string printable_list(const std::vector<std::string>& items) {
  if (items.empty()) return "none";
  std::vector<std::string> p;
  for (const auto& i : items) p.push_back(printable(i));
  return join(p);
}

void compare_acs(const GdsState& g, const GdscheckReport& p, const std::string& file, Comparison& c) {
  // gdscheck prints a line per ACS-enabled switch in PLATFORM INFO; a
  // complete 1.x output (IOMMU line and verdict) without one says none.
  // The 0.9 beta is not known to print them at all.
  bool stated = !p.acs.empty() || (!p.beta && !p.iommu.empty() && p.platform_verified.has_value());
  if (!stated) {
    c.not_compared.push_back("ACS: " + printable(file) + " has no PLATFORM INFO to tell");
    return;
  }
  if (!g.acs_bridges) {
    c.not_compared.push_back(
        "ACS: /proc/driver/nvidia-fs/bridges could not be read (nvidia-fs not loaded, or not "
        "captured)");
    return;
  }
  std::vector<std::string> gd = address_set(p.acs), fs = address_set(*g.acs_bridges);
  std::vector<std::string> gd_lines;
  for (const auto& l : p.acs) gd_lines.push_back("\"" + printable(l) + "\"");
  const std::string gd_ev =
      printable(file) + ": " + (p.acs.empty() ? "no ACS line in a complete PLATFORM INFO" : join(gd_lines));
  const std::string fs_ev = "/proc/driver/nvidia-fs/bridges: " + printable_list(fs);
  if (gd == fs) {
    c.agreed.push_back("bridges with ACS enabled: " + printable_list(gd) + " (" + gd_ev + "; " + fs_ev + ")");
    return;
  }
  c.differ("acs",
           "gdscheck saw ACS enabled on " + printable_list(gd) + ", nvidia-fs lists " + printable_list(fs) +
               ": ACS was changed (BIOS, setpci at boot, a reboot) after gdscheck ran, or gdscheck ran on another "
               "machine; older gdscheck releases may print no ACS line at all",
           {gd_ev, fs_ev}, kRerun + std::string("; gds.driver and gds.acs judge the bridges the files show"));
}

// --- errors gdscheck reported ---------------------------------------------

std::optional<Finding> gdscheck_errors(const GdscheckReport& p, const std::string& file) {
  if (p.errors.empty() && p.platform_verified != false) return std::nullopt;
  std::vector<std::string> ev;
  for (const auto& e : p.errors) ev.push_back(printable(file) + ": \"" + printable(e) + "\"");
  if (p.platform_verified == false) ev.push_back(printable(file) + ": \"Platform verification failed\"");
  for (const auto& gpu : p.gpus)
    if (!gpu.supports_gds && !gpu.detail.empty())
      ev.push_back(printable(file) + ": GPU " + std::to_string(gpu.index) + " " + printable(gpu.name) + " " +
                   printable(gpu.detail));
  return problem(kCheck, "errors", Status::Warning,
                 "gdscheck reported errors when it ran (" + std::to_string(p.errors.size()) +
                     " line(s)): the files cannot show whether they still hold",
                 ev,
                 "run gdscheck -p again on this node; its lines say which step failed (GPU, cuFile initialisation, "
                 "platform)");
}

}  // namespace

std::vector<Finding> check_gds_gdscheck(const GdsState& g, const std::optional<CufileConfig>& config,
                                        const GdscheckReport& p, const std::string& file) {
  Comparison c;
  compare_nvidia_fs(g, p, file, c);
  compare_configuration(g, config, p, file, c);
  compare_transports(g, p, file, c);
  compare_acs(g, p, file, c);

  std::vector<Finding> out;
  std::vector<std::string> not_compared;
  for (const auto& n : c.not_compared) not_compared.push_back("not compared, " + n);
  if (!c.agreed.empty()) {
    std::vector<std::string> ev = c.agreed;
    ev.insert(ev.end(), not_compared.begin(), not_compared.end());
    ev.push_back("both sides say what is installed and configured, not that any I/O took the direct path");
    out.push_back(ok(kCheck, "gdscheck",
                     "gdscheck -p output " + printable(file) + " agrees with the files on " +
                         std::to_string(c.agreed.size()) + " fact(s)" +
                         (c.differences.empty() ? "" : "; " + std::to_string(c.differences.size()) + " differ"),
                     ev));
  } else if (c.differences.empty()) {
    out.push_back(
        problem(kCheck, "gdscheck", Status::Unknown,
                "nothing to compare: gdscheck -p output " + printable(file) + " and the files state no fact in common",
                not_compared, "give the whole gdscheck -p output of this node, from its first line"));
  } else {
    c.differences.front().evidence.insert(c.differences.front().evidence.end(), not_compared.begin(),
                                          not_compared.end());
  }
  out.insert(out.end(), c.differences.begin(), c.differences.end());
  if (auto e = gdscheck_errors(p, file)) out.push_back(std::move(*e));
  return out;
}

}  // namespace gdrcheck
