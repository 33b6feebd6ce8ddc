// How old a node report is. Reports carry `"generated_at":
// "2026-12-03T17:47:26Z"` (UTC, RFC 3339 in exactly that form); a drain
// acts on a node now, so it needs evidence from now: a directory of
// reports collected last week must not take today's nodes out of service.
// Pure: the current time is always passed in, read once by the command.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gdrcheck {

using UnixSeconds = std::int64_t;

// A report this far ahead of the local clock is not believed: clocks of a
// cluster agree within seconds under NTP, so more is a wrong clock or a
// forged time, and neither is evidence of the node's state now.
inline constexpr std::int64_t kMaxFutureSkewS = 5 * 60;
inline constexpr std::int64_t kDefaultMaxAgeS = 60 * 60;

// "2026-12-03T17:47:26Z" -> seconds since the epoch; nullopt for any other
// form (offsets, fractions, lower-case letters) or an impossible date.
std::optional<UnixSeconds> parse_utc_time(const std::string& text);
// The inverse: always "YYYY-MM-DDTHH:MM:SSZ".
std::string format_utc_time(UnixSeconds t);

// "90s", "30m", "2h", "1d" or plain seconds ("600") -> seconds; nullopt for
// zero, negative, garbage or more than ten years.
std::optional<std::int64_t> parse_duration(const std::string& text);
// Seconds as a short duration for people: "12 s", "45 min", "3 h", "8 d"
// (rounded down to the largest unit).
std::string format_age(std::int64_t seconds);

// "" when a report generated at `generated_at` is recent enough to act on
// at `now`; else why not: "report is 8 d old (max-age 1h)", "report is
// from 10 min in the future (clock skew?)", "report has no generated_at
// (written by an older gdrcheck)". `max_age_text` is the option as given.
std::string staleness(const std::optional<UnixSeconds>& generated_at, UnixSeconds now, std::int64_t max_age_s,
                      const std::string& max_age_text);

// The age for a table cell: "12 s", "8 d", "future", "-" (no time).
std::string age_cell(const std::optional<UnixSeconds>& generated_at, UnixSeconds now);

}  // namespace gdrcheck
