#include "report/prometheus_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "prometheus_promtool.h"

namespace gdrcheck {
namespace {

TEST(PrometheusTextTest, EscapesBackslashQuoteAndNewline) {
  EXPECT_EQ(escape_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(escape_label_value("mlx5_0"), "mlx5_0");
}

TEST(PrometheusTextTest, LabelValuesLoseControlBytesAndInvalidUtf8) {
  std::string v = label_value("GPU0\x1b[31m\r\n\xff");
  for (char c : v) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << v;
  EXPECT_EQ(v, "GPU0\\x1b[31m\\r\\n\\xff");
  EXPECT_EQ(label_value("Ménage"), "Ménage");
}

TEST(PrometheusTextTest, LongValuesAreCutOnACharacterBoundaryAndStayDistinct) {
  std::string a(300, 'x'), b(300, 'x');
  b.back() = 'y';
  std::string wide;
  for (int i = 0; i < 100; ++i) wide += "é";
  EXPECT_LE(label_value(a).size(), kMaxLabelValueBytes);
  EXPECT_NE(label_value(a), label_value(b));
  std::string cut = label_value(wide);
  EXPECT_LE(cut.size(), kMaxLabelValueBytes);
  EXPECT_EQ(cut.find("é..."), cut.size() - std::string("é...~12345678").size()) << cut;
}

TEST(PrometheusTextTest, NamesFollowTheFormat) {
  EXPECT_TRUE(valid_metric_name("gdrcheck_status"));
  EXPECT_TRUE(valid_metric_name("a:b_c9"));
  EXPECT_FALSE(valid_metric_name("9lives"));
  EXPECT_FALSE(valid_metric_name("gdr-check"));
  EXPECT_FALSE(valid_metric_name(""));
  EXPECT_TRUE(valid_label_name("nic"));
  EXPECT_FALSE(valid_label_name("a:b"));
  EXPECT_FALSE(valid_label_name("__name__"));
  PrometheusText t;
  EXPECT_THROW(t.gauge("bad name", "x"), std::invalid_argument);
  t.gauge("ok_metric", "x");
  EXPECT_THROW(t.gauge("ok_metric", "again"), std::invalid_argument);
  EXPECT_THROW(t.add("undeclared", {}, 1), std::invalid_argument);
  EXPECT_THROW(t.add("ok_metric", {{"bad-label", "v"}}, 1), std::invalid_argument);
  EXPECT_THROW(t.add("ok_metric", {{"a", "1"}, {"a", "2"}}, 1), std::invalid_argument);
}

TEST(PrometheusTextTest, SampleValues) {
  EXPECT_EQ(sample_value(3), "3");
  EXPECT_EQ(sample_value(0.5), "0.5");
  EXPECT_EQ(sample_value(1700000000), "1700000000");
  EXPECT_EQ(sample_value(1700000000.25), "1700000000.25");
  EXPECT_EQ(sample_value(-0.0), "0");
  EXPECT_EQ(sample_value(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(sample_value(INFINITY), "+Inf");
  EXPECT_EQ(sample_value(-INFINITY), "-Inf");
}

TEST(PrometheusTextTest, EachFamilyOnceAndRepeatedSeriesFolded) {
  PrometheusText t;
  t.gauge("x_value", "A value");
  t.gauge("empty_value", "Never sampled");
  t.add("x_value", {{"k", "a"}}, 5, keep_lowest);
  t.add("x_value", {{"k", "b"}}, 1);
  t.add("x_value", {{"k", "a"}}, 2, keep_lowest);
  t.add("x_value", {{"k", "b"}}, 9);  // keep_first
  EXPECT_EQ(t.text(),
            "# HELP x_value A value\n"
            "# TYPE x_value gauge\n"
            "x_value{k=\"a\"} 2\n"
            "x_value{k=\"b\"} 1\n");
}

TEST(PrometheusTextTest, ValuesThatOnlyDifferPastTheCapAreTwoSeries) {
  PrometheusText t;
  t.gauge("x_value", "A value");
  t.add("x_value", {{"k", std::string(200, 'a') + "1"}}, 1);
  t.add("x_value", {{"k", std::string(200, 'a') + "2"}}, 2);
  std::string text = t.text();
  EXPECT_NE(text.find("} 1\n"), std::string::npos);
  EXPECT_NE(text.find("} 2\n"), std::string::npos);
}

TEST(PrometheusTextTest, PromtoolAcceptsHostileLabelValues) {
  GDRCHECK_SKIP_WITHOUT_PROMTOOL();
  PrometheusText t;
  t.gauge("gdrcheck_test_value", "Help with a \\ backslash\nand a line break");
  int i = 0;
  for (const std::string& v :
       std::vector<std::string>{"q\"uote", "new\nline", "back\\slash", "esc\x1b]0;title\x07", std::string("nul\0x", 5),
                                std::string(500, 'z'), "\xc3\x28 bad utf8", "\xe2\x80\xae bidi", ""})
    t.add("gdrcheck_test_value", {{"v", v}}, ++i);
  EXPECT_TRUE(promtool_accepts_metrics(t.text()));
}

}  // namespace
}  // namespace gdrcheck
