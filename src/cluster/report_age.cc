#include "cluster/report_age.h"

#include <cstdio>

namespace gdrcheck {
namespace {

constexpr std::int64_t kDay = 86400;
constexpr std::int64_t kMaxDurationS = 10 * 366 * kDay;

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
// algorithm): no timegm, no time zone, no locale.
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

struct Civil {
  std::int64_t y;
  unsigned m, d;
};

Civil civil_from_days(std::int64_t z) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return {static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2), m, d};
}

bool leap(std::int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

unsigned days_in_month(std::int64_t y, unsigned m) {
  static const unsigned days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : days[m - 1];
}

// The digits of text[at, at+n) as a number, or -1.
long digits(const std::string& text, std::size_t at, std::size_t n) {
  long v = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    v = v * 10 + (text[i] - '0');
  }
  return v;
}

}  // namespace

std::optional<UnixSeconds> parse_utc_time(const std::string& text) {
  // YYYY-MM-DDTHH:MM:SSZ
  if (text.size() != 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' || text[16] != ':' ||
      text[19] != 'Z')
    return std::nullopt;
  long y = digits(text, 0, 4), mo = digits(text, 5, 2), d = digits(text, 8, 2);
  long h = digits(text, 11, 2), mi = digits(text, 14, 2), s = digits(text, 17, 2);
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59)
    return std::nullopt;
  if (static_cast<unsigned>(d) > days_in_month(y, static_cast<unsigned>(mo))) return std::nullopt;
  return days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * kDay + h * 3600 + mi * 60 + s;
}

std::string format_utc_time(UnixSeconds t) {
  std::int64_t days = t >= 0 ? t / kDay : (t - kDay + 1) / kDay;
  std::int64_t rest = t - days * kDay;
  Civil c = civil_from_days(days);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lldZ", static_cast<long long>(c.y), c.m, c.d,
                static_cast<long long>(rest / 3600), static_cast<long long>(rest / 60 % 60),
                static_cast<long long>(rest % 60));
  return buf;
}

std::optional<std::int64_t> parse_duration(const std::string& text) {
  if (text.empty() || text.size() > 12) return std::nullopt;
  std::int64_t unit = 1;
  std::string number = text;
  switch (text.back()) {
    case 's':
      unit = 1;
      break;
    case 'm':
      unit = 60;
      break;
    case 'h':
      unit = 3600;
      break;
    case 'd':
      unit = kDay;
      break;
    default:
      unit = 0;
  }
  if (unit)
    number.pop_back();
  else
    unit = 1;
  if (number.empty() || number.size() > 10) return std::nullopt;
  std::int64_t value = 0;
  for (char c : number) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  if (value <= 0 || value > kMaxDurationS / unit) return std::nullopt;
  return value * unit;
}

std::string format_age(std::int64_t seconds) {
  if (seconds < 60) return std::to_string(seconds) + " s";
  if (seconds < 3600) return std::to_string(seconds / 60) + " min";
  if (seconds < kDay) return std::to_string(seconds / 3600) + " h";
  return std::to_string(seconds / kDay) + " d";
}

std::string staleness(const std::optional<UnixSeconds>& generated_at, UnixSeconds now, std::int64_t max_age_s,
                      const std::string& max_age_text) {
  if (!generated_at) return "report has no generated_at (written by an older gdrcheck)";
  std::int64_t age = now - *generated_at;
  if (age < -kMaxFutureSkewS) return "report is from " + format_age(-age) + " in the future (clock skew?)";
  if (age > max_age_s) return "report is " + format_age(age) + " old (max-age " + max_age_text + ")";
  return "";
}

std::string age_cell(const std::optional<UnixSeconds>& generated_at, UnixSeconds now) {
  if (!generated_at) return "-";
  std::int64_t age = now - *generated_at;
  if (age < -kMaxFutureSkewS) return "future";
  return format_age(age < 0 ? 0 : age);
}

}  // namespace gdrcheck
