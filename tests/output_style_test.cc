#include "report/output_style.h"

#include <gtest/gtest.h>

#include <map>

namespace gdrcheck {
namespace {

// An environment with exactly these variables set.
EnvGetter env_getter(std::map<std::string, std::string> vars) {
  return [vars](const char* name) -> std::optional<std::string> {
    auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

const std::map<std::string, std::string> kUtf8Terminal = {{"TERM", "xterm-256color"}, {"LANG", "en_US.UTF-8"}};

TEST(OutputStyle, AutoColoursOnlyATerminal) {
  EXPECT_TRUE(detect_output_style(ColorChoice::Auto, env_getter(kUtf8Terminal), true).color);
  EXPECT_FALSE(detect_output_style(ColorChoice::Auto, env_getter(kUtf8Terminal), false).color);
}

TEST(OutputStyle, NoColorAnyNonEmptyValueTurnsAutoColourOff) {
  for (const char* v : {"1", "0", "false", "yes"}) {
    auto vars = kUtf8Terminal;
    vars["NO_COLOR"] = v;
    EXPECT_FALSE(detect_output_style(ColorChoice::Auto, env_getter(vars), true).color) << v;
  }
  auto empty = kUtf8Terminal;
  empty["NO_COLOR"] = "";
  EXPECT_TRUE(detect_output_style(ColorChoice::Auto, env_getter(empty), true).color);
}

TEST(OutputStyle, DumbTerminalGetsNoColour) {
  EXPECT_FALSE(detect_output_style(ColorChoice::Auto, env_getter({{"TERM", "dumb"}}), true).color);
}

TEST(OutputStyle, TheFlagWinsOverEverything) {
  auto vars = kUtf8Terminal;
  vars["NO_COLOR"] = "1";
  EXPECT_TRUE(detect_output_style(ColorChoice::Always, env_getter(vars), false).color);
  EXPECT_FALSE(detect_output_style(ColorChoice::Never, env_getter(kUtf8Terminal), true).color);
}

TEST(OutputStyle, Utf8OnlyWhenTheLocaleSaysSo) {
  EXPECT_TRUE(detect_output_style(ColorChoice::Never, env_getter({{"LANG", "en_US.UTF-8"}}), false).utf8);
  EXPECT_TRUE(detect_output_style(ColorChoice::Never, env_getter({{"LC_CTYPE", "de_DE.utf8"}}), false).utf8);
  EXPECT_FALSE(detect_output_style(ColorChoice::Never, env_getter({}), false).utf8);
  EXPECT_FALSE(detect_output_style(ColorChoice::Never, env_getter({{"LANG", "C"}}), false).utf8);
  // LC_ALL overrides LANG, whichever way; an empty one does not count.
  EXPECT_FALSE(
      detect_output_style(ColorChoice::Never, env_getter({{"LC_ALL", "POSIX"}, {"LANG", "en_US.UTF-8"}}), false).utf8);
  EXPECT_TRUE(
      detect_output_style(ColorChoice::Never, env_getter({{"LC_ALL", ""}, {"LANG", "en_US.UTF-8"}}), false).utf8);
  EXPECT_FALSE(
      detect_output_style(ColorChoice::Never, env_getter({{"LC_CTYPE", "C"}, {"LANG", "en_US.UTF-8"}}), false).utf8);
}

TEST(OutputStyle, WidthFromColumnsThenTerminalThen80) {
  EXPECT_EQ(detect_output_style(ColorChoice::Never, env_getter({}), false).width, 80);
  EXPECT_EQ(detect_output_style(ColorChoice::Never, env_getter({}), false, 200).width, 80);  // not a terminal
  EXPECT_EQ(detect_output_style(ColorChoice::Never, env_getter({}), true, 132).width, 132);
  EXPECT_EQ(detect_output_style(ColorChoice::Never, env_getter({{"COLUMNS", "100"}}), true, 132).width, 100);
  EXPECT_EQ(detect_output_style(ColorChoice::Never, env_getter({{"COLUMNS", "100"}}), false).width, 100);
  for (const char* bad : {"", "abc", "0", "-5", "10", "99999999999", "100x", "1e3"})
    EXPECT_EQ(detect_output_style(ColorChoice::Never, env_getter({{"COLUMNS", bad}}), false).width, 80) << bad;
  EXPECT_EQ(detect_output_style(ColorChoice::Never, env_getter({}), true, 5).width, 80);
}

TEST(ColorChoice, ParsesTheThreeWordsOnly) {
  EXPECT_EQ(parse_color_choice("auto"), ColorChoice::Auto);
  EXPECT_EQ(parse_color_choice("always"), ColorChoice::Always);
  EXPECT_EQ(parse_color_choice("never"), ColorChoice::Never);
  EXPECT_FALSE(parse_color_choice("yes").has_value());
  EXPECT_FALSE(parse_color_choice("").has_value());
}

}  // namespace
}  // namespace gdrcheck
