#include "report/crosscheck_json.h"

namespace gdrcheck {
namespace {

using nlohmann::json;

json side_json(const CrosscheckSide& s) {
  return {{"nic", s.nic.empty() ? json(nullptr) : json(s.nic)}, {"gdr_send", s.gdr_send}, {"gdr_recv", s.gdr_recv}};
}

}  // namespace

json crosscheck_json(const std::vector<Crosscheck>& checks) {
  json out = json::array();
  for (const auto& c : checks)
    for (const auto& r : c.rows)
      out.push_back({{"topology", c.topology},
                     {"log", c.log},
                     {"predicted_with", c.predicted_with},
                     {"host", r.host.empty() ? json(nullptr) : json(r.host)},
                     {"rank", r.rank},
                     {"cuda_dev", r.cuda_dev >= 0 ? json(r.cuda_dev) : json(nullptr)},
                     {"gpu", r.gpu.empty() ? json(nullptr) : json(r.gpu)},
                     {"mapped_by", r.mapped_by},
                     {"predicted", r.gpu.empty() ? json(nullptr) : side_json(r.predicted)},
                     {"observed", side_json(r.observed)},
                     {"observed_by", r.observed_by.empty() ? json(nullptr) : json(r.observed_by)},
                     {"agree", r.agree},
                     {"cause", r.cause.empty() ? json(nullptr) : json(r.cause)}});
  return out;
}

}  // namespace gdrcheck
