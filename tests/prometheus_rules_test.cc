// The example alert rules in docs/ are valid and do what docs/prometheus.md
// says: checked and unit-tested by the real promtool.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>

#include "prometheus_promtool.h"

namespace gdrcheck {
namespace {

const std::string kRules = std::string(GDRCHECK_DATA_DIR) + "/docs/prometheus-alerts.yml";

// GPU0 send carries GDR for 10 minutes, then not; GPU1 recv carries it, then
// turns unknown (its series ends); GPU2 never did (no alert: not "lost").
// Node n1's report stops being rewritten; n2's is rewritten every minute.
const char* kUnitTests = R"yaml(rule_files:
  - RULES
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'gdrcheck_gpu_gdr{instance="n1",gpu="GPU0",nic="mlx5_0",direction="send"}'
        values: '1x10 0x300'
      - series: 'gdrcheck_gpu_gdr{instance="n1",gpu="GPU1",nic="mlx5_1",direction="recv"}'
        values: '1x10'
      - series: 'gdrcheck_gpu_gdr_known{instance="n1",gpu="GPU1",nic="mlx5_1",direction="recv"}'
        values: '1x10 0x300'
      - series: 'gdrcheck_gpu_gdr{instance="n1",gpu="GPU2",nic="mlx5_2",direction="send"}'
        values: '0x300'
      - series: 'gdrcheck_report_timestamp_seconds{instance="n1"}'
        values: '0x300'
      - series: 'gdrcheck_report_timestamp_seconds{instance="n2"}'
        values: '0+60x300'
    alert_rule_test:
      - eval_time: 5m
        alertname: GdrcheckGpuDirectRdmaLost
        exp_alerts: []
      - eval_time: 40m
        alertname: GdrcheckGpuDirectRdmaLost
        exp_alerts:
          - exp_labels: {severity: critical, instance: n1, gpu: GPU0, nic: mlx5_0, direction: send}
            exp_annotations:
              summary: "GPUDirect RDMA lost on n1: GPU0 via mlx5_0 (send)"
          - exp_labels: {severity: critical, instance: n1, gpu: GPU1, nic: mlx5_1, direction: recv}
            exp_annotations:
              summary: "GPUDirect RDMA lost on n1: GPU1 via mlx5_1 (recv)"
      - eval_time: 60m
        alertname: GdrcheckGpuDirectRdmaUnknown
        exp_alerts:
          - exp_labels: {severity: warning, instance: n1, gpu: GPU1, nic: mlx5_1, direction: recv}
            exp_annotations:
              summary: "GPUDirect RDMA cannot be verified on n1: GPU1 (recv)"
      - eval_time: 2h
        alertname: GdrcheckReportStale
        exp_alerts: []
      - eval_time: 4h
        alertname: GdrcheckReportStale
        exp_alerts:
          - exp_labels: {severity: warning, instance: n1}
            exp_annotations:
              summary: "gdrcheck report on n1 is older than 3 hours"
)yaml";

TEST(PrometheusRulesTest, PromtoolChecksTheExampleRules) {
  GDRCHECK_SKIP_WITHOUT_PROMTOOL();
  ProcessResult r = run_promtool({"check", "rules", kRules});
  EXPECT_TRUE(r.succeeded()) << r.describe() << "\n" << r.out << r.err;
}

TEST(PrometheusRulesTest, TheAlertsFireWhenDocumented) {
  GDRCHECK_SKIP_WITHOUT_PROMTOOL();
  char dir[] = "/tmp/prometheus_rules_test.XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string tests = kUnitTests;
  tests.replace(tests.find("RULES"), 5, kRules);
  std::string file = std::string(dir) + "/alerts_test.yml";
  std::ofstream(file) << tests;
  ProcessResult r = run_promtool({"test", "rules", file});
  unlink(file.c_str());
  rmdir(dir);
  EXPECT_TRUE(r.succeeded()) << r.describe() << "\n" << r.out << r.err;
}

}  // namespace
}  // namespace gdrcheck
