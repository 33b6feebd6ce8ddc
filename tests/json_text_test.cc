#include "report/json_text.h"

#include <gtest/gtest.h>

namespace gdrcheck {
namespace {

TEST(JsonText, InvalidUtf8BecomesReplacementCharacterNotAnAbort) {
  nlohmann::json j = {{"host", std::string("gpu\xff\xfe")}};
  std::string text = json_text(j, -1);
  EXPECT_EQ(text, "{\"host\":\"gpu\xef\xbf\xbd\xef\xbf\xbd\"}");
  EXPECT_TRUE(nlohmann::json::accept(text));
}

TEST(JsonText, C1ControlsAndBidiOverridesAreEscaped) {
  // U+009B (CSI), U+202E (right-to-left override), U+2066 (isolate).
  nlohmann::json j = {{"v", std::string("a\xc2\x9b"
                                        "2Jb\xe2\x80\xae"
                                        "c\xe2\x81\xa6"
                                        "d\x1b")}};
  std::string text = json_text(j, -1);
  EXPECT_EQ(text, "{\"v\":\"a\\u009b2Jb\\u202ec\\u2066d\\u001b\"}");
  EXPECT_EQ(nlohmann::json::parse(text)["v"], j["v"]);
}

TEST(JsonText, OrdinaryUnicodeStaysAsItIs) {
  nlohmann::json j = {{"v", "M\xc3\xa9nage \xe6\x97\xa5\xe6\x9c\xac \xe2\x80\x94 \xc2\xa0"}};
  EXPECT_EQ(json_text(j, -1), "{\"v\":\"M\xc3\xa9nage \xe6\x97\xa5\xe6\x9c\xac \xe2\x80\x94 \xc2\xa0\"}");
}

}  // namespace
}  // namespace gdrcheck
