#include "host/untrusted_json.h"

#include <cmath>
#include <cstddef>
#include <iterator>
#include <limits>
#include <vector>

namespace gdrcheck {
namespace {

using nlohmann::json;

// A pointer into the text that records how far the parser has read, so a
// refusal made in the middle of the document can say where it is.
class TrackedChar {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TrackedChar(const char* at, const char** read) : at_(at), read_(read) {}
  reference operator*() const { return *at_; }
  TrackedChar& operator++() {
    *read_ = ++at_;
    return *this;
  }
  TrackedChar operator++(int) {
    TrackedChar before = *this;
    ++*this;
    return before;
  }
  bool operator==(const TrackedChar& other) const { return at_ == other.at_; }

 private:
  const char* at_;
  const char** read_;
};

// "line 3, column 12" of the byte before `read` (the last one the parser took).
std::string position_of(std::string_view text, std::size_t read) {
  std::size_t line = 1, line_start = 0;
  for (std::size_t i = 0; i < read && i < text.size(); ++i)
    if (text[i] == '\n') ++line, line_start = i + 1;
  return "line " + std::to_string(line) + ", column " + std::to_string(read - line_start);
}

// The parser's message without its "[json.exception.parse_error.101] "
// prefix. It quotes the token it stopped at ("last read: '...'"), which is
// data: only printable ASCII is kept, and a long token is cut.
std::string parser_message(const std::string& what) {
  constexpr std::size_t kShown = 200;
  auto close = what.find("] ");
  bool prefixed = what.rfind("[json.exception", 0) == 0 && close != std::string::npos;
  std::string message = prefixed ? what.substr(close + 2) : what;
  if (message.size() > kShown) message = message.substr(0, kShown) + "...";
  for (char& c : message)
    if (c < 0x20 || c > 0x7e) c = '?';
  return message;
}

// Builds the document from the parser's events, refusing a level past the
// bound and a key that its object already has. Refusing stops the parse.
class BoundedBuilder {
 public:
  BoundedBuilder(std::size_t max_depth, const std::string& what) : max_depth_(max_depth), what_(what) {}

  bool null() { return put(nullptr); }
  bool boolean(bool v) { return put(v); }
  bool number_integer(json::number_integer_t v) { return put(v); }
  bool number_unsigned(json::number_unsigned_t v) { return put(v); }
  bool number_float(json::number_float_t v, const std::string&) { return put(v); }
  bool string(std::string& v) { return put(std::move(v)); }
  bool binary(json::binary_t& v) { return put(json::binary(std::move(v))); }
  bool start_object(std::size_t) { return open(json::object()); }
  bool start_array(std::size_t) { return open(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(std::string& k) {
    json& object = *open_.back();
    if (object.contains(k)) return refuse("key " + json_shown(json(k)) + " appears twice in one object", true);
    member_ = &object[k];
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    syntax_ = parser_message(e.what());
    return false;
  }

  json& document() { return root_; }
  const std::string& refusal() const { return refusal_; }
  bool refusal_has_position() const { return refusal_has_position_; }
  const std::string& syntax() const { return syntax_; }

 private:
  // Where the next value goes: the root, the end of the open array, or the
  // member whose key was just read.
  json* place(json v) {
    if (open_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json& top = *open_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return &top.back();
    }
    *member_ = std::move(v);
    return member_;
  }

  bool put(json v) {
    place(std::move(v));
    return true;
  }

  bool open(json container) {
    if (open_.size() >= max_depth_)
      return refuse("nested deeper than " + std::to_string(max_depth_) + " levels; not a " + what_, false);
    open_.push_back(place(std::move(container)));
    return true;
  }

  bool close() {
    open_.pop_back();
    return true;
  }

  bool refuse(std::string problem, bool with_position) {
    refusal_ = std::move(problem);
    refusal_has_position_ = with_position;
    return false;
  }

  std::size_t max_depth_;
  const std::string& what_;
  json root_;
  std::vector<json*> open_;  // the objects and arrays not yet closed, outermost first
  json* member_ = nullptr;
  std::string refusal_, syntax_;
  bool refusal_has_position_ = false;
};

}  // namespace

json parse_untrusted_json(std::string_view text, const std::string& file, const std::string& what,
                          const UntrustedJsonOptions& options) {
  const char* read = text.data();
  TrackedChar first(text.data(), &read), last(text.data() + text.size(), &read);
  BoundedBuilder builder(options.max_depth, what);
  if (json::sax_parse(first, last, &builder, json::input_format_t::json, true, options.allow_comments))
    return std::move(builder.document());
  if (!builder.refusal().empty()) {
    std::string problem = builder.refusal();
    if (builder.refusal_has_position())
      problem += " (" + position_of(text, static_cast<std::size_t>(read - text.data())) + ")";
    throw InputError(file, problem);
  }
  throw JsonSyntaxError(file, builder.syntax().empty() ? "unreadable" : builder.syntax());
}

std::string json_shown(const json& v) {
  if (!v.is_string()) return json_value_description(v);
  constexpr std::size_t kShown = 64;
  const std::string& text = v.get_ref<const std::string&>();
  std::string cut = text.size() > kShown ? text.substr(0, kShown) + "..." : text;
  return json(cut).dump(-1, ' ', true, json::error_handler_t::replace);
}

std::string json_value_description(const json& v) {
  switch (v.type()) {
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      return v.dump();
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    default:
      return std::string("a ") + v.type_name();
  }
}

WholeNumber read_whole_number(const json& v, const std::string& name, long long min, long long max) {
  std::optional<long long> n;
  if (v.is_number_unsigned()) {
    if (v.get<json::number_unsigned_t>() <= static_cast<json::number_unsigned_t>(std::numeric_limits<long long>::max()))
      n = static_cast<long long>(v.get<json::number_unsigned_t>());
  } else if (v.is_number_integer()) {
    n = v.get<json::number_integer_t>();
  } else if (v.is_number_float()) {
    // Only a value that is exactly an integer inside long long's range may
    // be converted; anything else would be undefined behaviour.
    double d = v.get<double>();
    if (std::isfinite(d) && d == std::trunc(d) && d >= -9.2e18 && d <= 9.2e18) n = static_cast<long long>(d);
  }
  if (n && *n >= min && *n <= max) return {n, ""};
  return {std::nullopt, "\"" + name + "\" must be a whole number from " + std::to_string(min) + " to " +
                            std::to_string(max) + ", not " + json_value_description(v)};
}

}  // namespace gdrcheck
