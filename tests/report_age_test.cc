// Report times and ages: the exact RFC 3339 form reports carry, durations
// of --max-age, and when a report is too old (or too new) to act on.
#include "cluster/report_age.h"

#include <gtest/gtest.h>

namespace gdrcheck {
namespace {

TEST(ReportAge, ParsesTheWrittenFormAndBack) {
  EXPECT_EQ(parse_utc_time("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(parse_utc_time("2026-12-03T17:47:26Z"), 1796320046);
  EXPECT_EQ(parse_utc_time("2024-02-29T23:59:59Z"), 1709251199);
  for (UnixSeconds t : {UnixSeconds{0}, UnixSeconds{1709251199}, UnixSeconds{1796320046}, UnixSeconds{4102444800}})
    EXPECT_EQ(parse_utc_time(format_utc_time(t)), t) << format_utc_time(t);
  EXPECT_EQ(format_utc_time(1796320046), "2026-12-03T17:47:26Z");
}

TEST(ReportAge, RefusesEveryOtherForm) {
  for (const char* bad :
       {"", "2026-12-03T17:47:26", "2026-12-03T17:47:26+00:00", "2026-12-03t17:47:26z", "2026-12-03 17:47:26Z",
        "2026-12-03T17:47:26.5Z", "2025-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-12-03T24:00:00Z",
        "2026-12-03T17:60:00Z", "1969-12-31T23:59:59Z", "+026-12-03T17:47:26Z", "2026-12-03T17:47:2\x01Z"})
    EXPECT_FALSE(parse_utc_time(bad)) << bad;
}

TEST(ReportAge, Durations) {
  EXPECT_EQ(parse_duration("90s"), 90);
  EXPECT_EQ(parse_duration("30m"), 1800);
  EXPECT_EQ(parse_duration("2h"), 7200);
  EXPECT_EQ(parse_duration("1d"), 86400);
  EXPECT_EQ(parse_duration("600"), 600);
  for (const char* bad : {"", "0", "0s", "-5", "-1h", "1.5h", "h", "1w", "1 h", "abc", "99999999999d", "1e3"})
    EXPECT_FALSE(parse_duration(bad)) << bad;
}

TEST(ReportAge, FreshOldFutureAndMissing) {
  const UnixSeconds now = 1796320046;
  EXPECT_EQ(staleness(now - 3600, now, 3600, "1h"), "");
  EXPECT_EQ(staleness(now + 299, now, 3600, "1h"), "");
  EXPECT_EQ(staleness(now - 8 * 86400, now, 3600, "1h"), "report is 8 d old (max-age 1h)");
  EXPECT_EQ(staleness(now - 3601, now, 3600, "1h"), "report is 1 h old (max-age 1h)");
  EXPECT_EQ(staleness(now + 600, now, 3600, "1h"), "report is from 10 min in the future (clock skew?)");
  EXPECT_EQ(staleness(std::nullopt, now, 3600, "1h"), "report has no generated_at (written by an older gdrcheck)");
  EXPECT_EQ(age_cell(now - 12, now), "12 s");
  EXPECT_EQ(age_cell(now - 45 * 60, now), "45 min");
  EXPECT_EQ(age_cell(now + 10, now), "0 s");
  EXPECT_EQ(age_cell(now + 3600, now), "future");
  EXPECT_EQ(age_cell(std::nullopt, now), "-");
}

}  // namespace
}  // namespace gdrcheck
