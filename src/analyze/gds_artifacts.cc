#include "analyze/gds_artifacts.h"

#include <algorithm>
#include <map>

#include "host/text_format.h"

namespace gdrcheck {
namespace {

const char* const kGpudCaution =
    "gdsio names the API it measured: it prints GPUD also when libcufile fell back to compat mode and bounced the "
    "data through host memory. The run's cufile.log (no compat-mode line) or the nvidia-fs read/write counters "
    "(/proc/driver/nvidia-fs/stats before and after) prove the direct path";

std::string gib(double v) {
  return fixed(v, v < 10 ? 3 : 2) + " GiB/s";
}

// The best throughput per I/O type of the runs of one class, in the order
// the I/O types first appear.
std::vector<std::pair<std::string, const GdsioRun*>> best_per_io(const std::vector<const GdsioRun*>& runs) {
  std::vector<std::pair<std::string, const GdsioRun*>> best;
  for (const GdsioRun* r : runs) {
    if (!r->throughput_gib_s) continue;
    std::string io = r->io_type.empty() ? "I/O" : r->io_type;
    auto it = std::find_if(best.begin(), best.end(), [&](const auto& b) { return b.first == io; });
    if (it == best.end())
      best.emplace_back(io, r);
    else if (*r->throughput_gib_s > *it->second->throughput_gib_s)
      it->second = r;
  }
  return best;
}

}  // namespace

void judge_gdsio(Artifact& a) {
  const GdsioReport& g = *a.gdsio;
  std::vector<const GdsioRun*> direct, staged, untyped;
  for (const auto& r : g.runs) {
    switch (gdsio_xfer_class(r.xfer_type)) {
      case GdsioXferClass::Direct:
        direct.push_back(&r);
        break;
      case GdsioXferClass::CpuStaged:
        staged.push_back(&r);
        break;
      case GdsioXferClass::Unknown:
        untyped.push_back(&r);
        break;
    }
  }
  for (const GdsioRun* r : direct)
    if (r->xfer_from_command)
      a.notes.push_back("line " + std::to_string(r->line) + ": transfer type " + r->xfer_type +
                        " taken from the gdsio command before it (the result line does not print it)");
  for (const auto& n : g.notes) a.notes.push_back(n);

  if (!g.errors.empty()) {
    a.status = Status::Critical;
    a.verdict = "gdsio reported I/O errors (" + std::to_string(g.errors.size()) + " lines; line " +
                std::to_string(g.errors.front().line) + ": " + g.errors.front().text + ")";
    for (std::size_t i = 1; i < g.errors.size() && i < 5; ++i)
      a.notes.push_back("line " + std::to_string(g.errors[i].line) + ": " + g.errors[i].text);
    a.notes.push_back(
        "failed I/O of a GPU direct run means the direct path is broken, not slow: the cuFile log of the run "
        "(cufile.log) and dmesg (nvidia-fs) say where");
    return;
  }
  if (!direct.empty()) {
    a.status = Status::Ok;
    std::string what;
    for (const auto& [io, r] : best_per_io(direct))
      what += (what.empty() ? "" : ", ") + io + " " + gib(*r->throughput_gib_s) + " (" + r->xfer_type + ", line " +
              std::to_string(r->line) + ")";
    a.verdict = "GPUDirect Storage path measured: " + std::to_string(direct.size()) + " run" +
                (direct.size() == 1 ? "" : "s") + " through cuFile" + (what.empty() ? "" : "; best " + what);
    a.notes.push_back(kGpudCaution);
    // Beside a staged run of the same I/O type the direct one should not be
    // slower; when it is, the route between storage and GPU is the suspect.
    auto staged_best = best_per_io(staged);
    for (const auto& [io, d] : best_per_io(direct))
      for (const auto& [sio, s] : staged_best)
        if (io == sio) {
          std::string line = io + ": GPU direct " + gib(*d->throughput_gib_s) + " vs " + s->xfer_type + " " +
                             gib(*s->throughput_gib_s);
          if (*d->throughput_gib_s < 0.8 * *s->throughput_gib_s)
            line +=
                ": the direct path is slower than the copy through host memory; look at the PCIe route "
                "between the storage (or its NIC) and the GPU (gdrcheck topo, ACS, IOMMU) and at compat mode";
          a.notes.push_back(line);
        }
    return;
  }
  a.status = Status::Unknown;
  if (!staged.empty()) {
    std::map<std::string, std::size_t> kinds;
    for (const GdsioRun* r : staged) ++kinds[r->xfer_type];
    std::string list;
    for (const auto& [x, n] : kinds) list += (list.empty() ? "" : ", ") + x + " (" + gdsio_xfer_meaning(x) + ")";
    a.verdict = "no GPU direct run: " + list +
                " does not use GPUDirect Storage, so this output says nothing about it either way; rerun with "
                "gdsio -x 0";
  } else if (!untyped.empty()) {
    a.verdict = std::to_string(untyped.size()) + " run" + (untyped.size() == 1 ? "" : "s") +
                " without a known transfer type: paste the whole result line (XferType) or the gdsio command (-x)";
  } else {
    a.verdict = "no gdsio result or error line";
  }
}

void judge_cufile_log(Artifact& a) {
  const CufileLogReport& c = *a.cufile_log;
  auto critical = [](CufileFact f) {
    return f == CufileFact::DriverOpenFailed || f == CufileFact::VersionMismatch ||
           f == CufileFact::BufRegisterFailed || f == CufileFact::NotSupportedOnFile ||
           f == CufileFact::HandleRegisterFailed;
  };
  auto positive = [](CufileFact f) { return f == CufileFact::DirectPathTaken || f == CufileFact::NvidiaFsOpened; };
  const CufileFinding *first_critical = nullptr, *first_warning = nullptr;
  for (const auto& f : c.findings) {
    if (critical(f.fact) && !first_critical) first_critical = &f;
    if (!critical(f.fact) && !positive(f.fact) && !first_warning) first_warning = &f;
  }
  auto at = [](const CufileFinding& f) { return " (line " + std::to_string(f.lines.front()) + ")"; };
  const CufileFinding* compat = c.find(CufileFact::CompatMode);
  if (!compat) compat = c.find(CufileFact::CompatForced);
  const CufileFinding* direct = c.find(CufileFact::DirectPathTaken);
  if (first_critical) {
    a.status = Status::Critical;
    a.verdict = std::string("cuFile could not use GPUDirect Storage: ") + cufile_fact_meaning(first_critical->fact) +
                at(*first_critical);
  } else if (first_warning) {
    a.status = Status::Warning;
    const CufileFinding& w = compat ? *compat : *first_warning;
    a.verdict = (compat ? std::string("compat mode: cuFile I/O went through host memory, not GPUDirect Storage")
                        : std::string(cufile_fact_meaning(w.fact))) +
                at(w);
  } else if (direct) {
    a.status = Status::Ok;
    a.verdict = "the direct path was taken (nvidia-fs I/O with O_DIRECT" + at(*direct) +
                "); no compat mode or error in the log";
  } else if (const CufileFinding* opened = c.find(CufileFact::NvidiaFsOpened)) {
    a.status = Status::Ok;
    a.verdict = "cuFile opened nvidia-fs" + (c.nvidia_fs_version.empty() ? std::string() : " " + c.nvidia_fs_version) +
                at(*opened) +
                " with no compat mode or error in the log; it shows no I/O, so the direct path itself is not proven";
  } else {
    a.status = Status::Unknown;
    a.verdict = c.log_lines ? std::to_string(c.log_lines) + " cuFile log lines, none about the direct path"
                            : "no cuFile log line";
  }
  std::string span = std::to_string(c.log_lines) + " cuFile log lines";
  if (c.processes) span += " from " + std::to_string(c.processes) + " process" + (c.processes == 1 ? "" : "es");
  if (!c.first_time.empty())
    span += c.first_time == c.last_time ? ", at " + c.first_time : ", " + c.first_time + " to " + c.last_time;
  if (!c.gds_version.empty()) span += "; GDS " + c.gds_version;
  a.notes.push_back(span);
  for (const auto& f : c.findings) {
    std::string n = std::string(cufile_fact_code(f.fact)) + " (" + std::to_string(f.count) + " line" +
                    (f.count == 1 ? "" : "s") + "): " + cufile_fact_meaning(f.fact);
    for (std::size_t i = 0; i < f.quotes.size() && i < 2; ++i)
      n += "; line " + std::to_string(f.lines[i]) + ": " + f.quotes[i];
    a.notes.push_back(n);
  }
  bool verbose = c.levels.count("DEBUG") || c.levels.count("TRACE");
  if (!direct && !verbose)
    a.notes.push_back(
        "at the default level a direct I/O writes no line: CUFILE_LOGGING_LEVEL=DEBUG (or logging.level in "
        "cufile.json) shows 'gds path taken' for each one");
  for (const auto& n : c.notes) a.notes.push_back(n);
}

}  // namespace gdrcheck
