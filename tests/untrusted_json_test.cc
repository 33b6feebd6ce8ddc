// The reader for JSON from other machines and users: documents come back
// whole; too deep, repeated keys and broken text are refused with the file,
// the problem and where; whole numbers are read without undefined
// behaviour.
#include "host/untrusted_json.h"

#include <gtest/gtest.h>

#include <string>

namespace gdrcheck {
namespace {

using nlohmann::json;

std::string nested(std::size_t levels, const std::string& inner = "1") {
  return std::string(levels, '[') + inner + std::string(levels, ']');
}

std::string nested_objects(std::size_t levels) {
  std::string s;
  for (std::size_t i = 0; i < levels; ++i) s += "{\"a\":";
  return s + "1" + std::string(levels, '}');
}

// The InputError's problem for `text`; fails the test when it parses.
std::string untrusted_json_problem(const std::string& text, const UntrustedJsonOptions& o = {}) {
  try {
    parse_untrusted_json(text, "r.json", "node report", o);
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "r.json");
    return e.problem();
  }
  ADD_FAILURE() << "parsed: " << text.substr(0, 80);
  return "";
}

TEST(UntrustedJson, ReadsOrdinaryDocumentsWhole) {
  std::string text =
      R"({"schema": "x", "n": -3, "u": 18446744073709551615, "f": 2.5, "b": true, "z": null,
          "a": [1, [2, {"k": "v"}], {}], "o": {"p": {"q": []}}})";
  EXPECT_EQ(parse_untrusted_json(text, "r.json", "report"), json::parse(text));
  EXPECT_EQ(parse_untrusted_json("7", "r.json", "report"), json(7));
  EXPECT_EQ(parse_untrusted_json("[]", "r.json", "report"), json::array());
  EXPECT_EQ(parse_untrusted_json(R"("s")", "r.json", "report"), json("s"));
}

TEST(UntrustedJson, DepthUpToTheBoundIsRead) {
  EXPECT_EQ(parse_untrusted_json(nested(kMaxJsonDepth), "r.json", "report"), json::parse(nested(kMaxJsonDepth)));
  EXPECT_NO_THROW(parse_untrusted_json(nested_objects(kMaxJsonDepth), "r.json", "report"));
}

TEST(UntrustedJson, DeeperIsRefusedWithoutRecursion) {
  EXPECT_EQ(untrusted_json_problem(nested(kMaxJsonDepth + 1)), "nested deeper than 64 levels; not a node report");
  EXPECT_EQ(untrusted_json_problem(nested_objects(kMaxJsonDepth + 1)),
            "nested deeper than 64 levels; not a node report");
  // Far deeper than any stack can recurse: refused at level 65, never built.
  EXPECT_EQ(untrusted_json_problem(nested(100000)), "nested deeper than 64 levels; not a node report");
  EXPECT_EQ(untrusted_json_problem(R"({"ok": 1, "deep": )" + nested_objects(100000) + "}"),
            "nested deeper than 64 levels; not a node report");
  UntrustedJsonOptions shallow;
  shallow.max_depth = 2;
  EXPECT_EQ(untrusted_json_problem("[[[1]]]", shallow), "nested deeper than 2 levels; not a node report");
}

TEST(UntrustedJson, RepeatedKeysAreRefusedWithTheirPlace) {
  EXPECT_EQ(untrusted_json_problem("{\"status\": \"CRITICAL\",\n \"status\": \"OK\"}"),
            "key \"status\" appears twice in one object (line 2, column 9)");
  EXPECT_EQ(untrusted_json_problem(R"({"a": {"x": 1, "y": 2, "x": 3}})"),
            "key \"x\" appears twice in one object (line 1, column 26)");
  // The same key in different objects is normal.
  EXPECT_NO_THROW(parse_untrusted_json(R"({"a": {"x": 1}, "b": {"x": 1}, "x": [{"x": 1}, {"x": 2}]})", "r.json", "r"));
}

TEST(UntrustedJson, KeysInMessagesCarryNoControlBytes) {
  std::string p = untrusted_json_problem(R"({"\u001b[2J": 1, "\u001b[2J": 2})");
  EXPECT_EQ(p.find('\x1b'), std::string::npos) << p;
  EXPECT_NE(p.find("\\u001b[2J"), std::string::npos) << p;
  std::string long_key(5000, 'k');
  std::string q = untrusted_json_problem("{\"" + long_key + "\": 1, \"" + long_key + "\": 2}");
  EXPECT_LT(q.size(), 200u) << q;
}

TEST(UntrustedJson, TextThatIsNotJsonIsASyntaxError) {
  for (const char* text : {"", "bash: gdrcheck: command not found", "{\"a\": 1,}", "{\"a\": 1} trailing", "[1e400]",
                           "{\"a\": \"\xff\"}", "// c\n{}"}) {
    try {
      parse_untrusted_json(text, "r.json", "report");
      ADD_FAILURE() << "parsed: " << text;
    } catch (const JsonSyntaxError& e) {
      EXPECT_EQ(e.file(), "r.json");
      EXPECT_EQ(e.problem(), "not valid JSON: " + e.detail());
      EXPECT_FALSE(e.detail().empty());
    }
  }
}

TEST(UntrustedJson, SyntaxErrorsQuoteNoControlBytesAndStayShort) {
  std::string garbage = "\x1b]0;title\x07\x9b" + std::string(100000, 'x');
  try {
    parse_untrusted_json("[\"" + garbage, "r.json", "report");
    ADD_FAILURE() << "parsed";
  } catch (const JsonSyntaxError& e) {
    for (char c : e.detail()) EXPECT_TRUE(c >= 0x20 && c <= 0x7e) << int(c);
    EXPECT_LT(e.detail().size(), 300u);
  }
}

TEST(UntrustedJson, CommentsOnlyWhenAllowed) {
  UntrustedJsonOptions o;
  o.allow_comments = true;
  EXPECT_EQ(parse_untrusted_json("// a description\n{\"a\": 1 /* one */}", "d.json", "description", o),
            json({{"a", 1}}));
  EXPECT_THROW(parse_untrusted_json("// a description\n{\"a\": 1}", "d.json", "description"), JsonSyntaxError);
}

TEST(WholeNumbers, InRangeIntegersAndIntegralFloats) {
  EXPECT_EQ(read_whole_number(json(8), "count", 0, 100).value, 8);
  EXPECT_EQ(read_whole_number(json::parse("8.0"), "count", 0, 100).value, 8);
  EXPECT_EQ(read_whole_number(json(-2), "n", -5, 5).value, -2);
  EXPECT_EQ(read_whole_number(json(0u), "n", 0, 0).value, 0);
}

TEST(WholeNumbers, RefusesWhatWouldNotConvertSafely) {
  auto refused = [](const json& v) {
    WholeNumber n = read_whole_number(v, "port", 0, 65535);
    EXPECT_FALSE(n.value) << v.dump();
    return n.problem;
  };
  EXPECT_EQ(refused(json::parse("1e300")), "\"port\" must be a whole number from 0 to 65535, not 1e+300");
  EXPECT_EQ(refused(json::parse("-1e300")), "\"port\" must be a whole number from 0 to 65535, not -1e+300");
  EXPECT_EQ(refused(json(1.5)), "\"port\" must be a whole number from 0 to 65535, not 1.5");
  EXPECT_EQ(refused(json(-1)), "\"port\" must be a whole number from 0 to 65535, not -1");
  EXPECT_EQ(refused(json(65536)), "\"port\" must be a whole number from 0 to 65535, not 65536");
  EXPECT_EQ(refused(json(18446744073709551615u)),
            "\"port\" must be a whole number from 0 to 65535, not 18446744073709551615");
  EXPECT_EQ(refused(json::parse("9.3e18")), "\"port\" must be a whole number from 0 to 65535, not 9.3e+18");
  EXPECT_EQ(refused(json("8")), "\"port\" must be a whole number from 0 to 65535, not a string");
  EXPECT_EQ(refused(json(nullptr)), "\"port\" must be a whole number from 0 to 65535, not null");
  EXPECT_EQ(refused(json::object()), "\"port\" must be a whole number from 0 to 65535, not an object");
  EXPECT_EQ(refused(json(true)), "\"port\" must be a whole number from 0 to 65535, not a boolean");
}

}  // namespace
}  // namespace gdrcheck
