// libFuzzer entry point for the cuFile configuration (`cufile.json`, JSON
// with comments, read from roots and job paths): parsed, judged by the
// gds.cufile check as if it were /etc/cufile.json, and rendered as text and
// JSON. Nothing may throw; every finding must name its check; the text must
// carry no control byte; the JSON must parse back.
#include <cstddef>
#include <cstdint>
#include <string>

#include "checks/gds_checks.h"
#include "checks/gds_report.h"
#include "evidence/cufile_config.h"
#include "output_checks.h"
#include "report/gds_json.h"
#include "report/gds_text.h"
#include "report/json_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gdrcheck;
  std::string text(reinterpret_cast<const char*>(data), size);
  GdsState g;
  g.nvidia_gpus = 1;
  g.cufile_path = "/etc/cufile.json";
  g.cufile_text = text;
  CufileConfig c = parse_cufile_config(text, "/etc/cufile.json");
  if (c.parsed && !c.error.empty()) __builtin_trap();
  for (const auto& f : check_gds_cufile(g, c))
    if (f.check != "gds.cufile") __builtin_trap();
  GdsReport r = build_gds_report(g, "host");
  fuzz_checks::text_is_clean(render_gds_text(r));
  fuzz_checks::json_parses_back(json_text(gds_json(r)));
  return 0;
}
