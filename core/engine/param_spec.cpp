#include "core/engine/param_spec.h"

#include "core/text/utf8.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace fl {

namespace {

std::string formatNumber(double v, bool integer = false) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // Integer limits exactly (2147483647, not 2.14748e+09): the message is what one types.
  if (integer) return std::to_string(static_cast<long long>(v));
  std::ostringstream out;
  out << v;
  return out.str();
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out;
}

std::string rangeText(const ParamSpec& s) {
  const bool integer = s.type == ParamType::Int;
  return std::string(s.minimumExclusive ? "(" : "[") + formatNumber(s.minimum, integer) + ", " +
         formatNumber(s.maximum, integer) + "]";
}

}  // namespace

std::string toString(ParamType type) {
  switch (type) {
    case ParamType::Int:
      return "int";
    case ParamType::Float:
      return "float";
    case ParamType::Bool:
      return "bool";
    case ParamType::Choice:
      return "choice";
    case ParamType::Text:
      return "text";
  }
  return "?";
}

ParamSpec ParamSpec::integer(std::string name, long long defaultValue, long long minimum,
                             long long maximum, std::string help) {
  ParamSpec s;
  s.name = std::move(name);
  s.type = ParamType::Int;
  s.defaultValue = defaultValue;
  s.minimum = static_cast<double>(minimum);
  s.maximum = static_cast<double>(maximum);
  s.help = std::move(help);
  return s;
}

ParamSpec ParamSpec::real(std::string name, double defaultValue, double minimum, double maximum,
                          std::string help) {
  ParamSpec s;
  s.name = std::move(name);
  s.type = ParamType::Float;
  s.defaultValue = defaultValue;
  s.minimum = minimum;
  s.maximum = maximum;
  s.help = std::move(help);
  return s;
}

ParamSpec ParamSpec::choice(std::string name, std::string defaultValue,
                            std::vector<std::string> choices, std::string help) {
  ParamSpec s;
  s.name = std::move(name);
  s.type = ParamType::Choice;
  s.defaultValue = std::move(defaultValue);
  s.choices = std::move(choices);
  s.help = std::move(help);
  return s;
}

ParamSpec ParamSpec::flag(std::string name, bool defaultValue, std::string help) {
  ParamSpec s;
  s.name = std::move(name);
  s.type = ParamType::Bool;
  s.defaultValue = defaultValue;
  s.help = std::move(help);
  return s;
}

ParamSpec ParamSpec::text(std::string name, std::string defaultValue, std::string help) {
  ParamSpec s;
  s.name = std::move(name);
  s.type = ParamType::Text;
  s.defaultValue = std::move(defaultValue);
  s.help = std::move(help);
  return s;
}

ParamSpec& ParamSpec::namesAFile() {
  isFilePath = true;
  return *this;
}

ParamSpec& ParamSpec::inGroup(std::string g) {
  group = std::move(g);
  return *this;
}
ParamSpec& ParamSpec::exclusiveMinimum() {
  minimumExclusive = true;
  return *this;
}
ParamSpec& ParamSpec::live() {
  mutability = Mutability::Live;
  return *this;
}
ParamSpec& ParamSpec::logarithmic() {
  logScale = true;
  return *this;
}

ParamSpec& ParamSpec::usedOnlyWhen(std::string key, std::vector<std::string> values) {
  condition = ParamCondition{std::move(key), std::move(values)};
  return *this;
}

std::string ParamSpec::conditionDescription() const {
  if (!condition) return {};
  std::string alternatives;
  for (size_t i = 0; i < condition->values.size(); ++i)
    alternatives += (i == 0                              ? ""
                     : i + 1 == condition->values.size() ? " or "
                                                         : ", ") +
                    condition->values[i];
  return "used only when " + condition->key + " is " + alternatives;
}

std::string ParamSpec::allowedDescription() const {
  switch (type) {
    case ParamType::Int:
      return "an integer in " + rangeText(*this);
    case ParamType::Float:
      return "a number in " + rangeText(*this);
    case ParamType::Bool:
      return "true or false";
    case ParamType::Choice:
      return "one of " + joined(choices);
    case ParamType::Text:
      return "a string";
  }
  return "?";
}

namespace {

// A value as a message shows it. Bytes that are not UTF-8 (a typed or pasted value) become
// U+FFFD here: nlohmann's dump would throw, and the message is how the user learns of them.
std::string shown(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool isUtf8(const std::string& text) { return fl::text::decodeUtf8(text).has_value(); }

}  // namespace

std::optional<std::string> checkValue(const ParamSpec& spec, const nlohmann::json& value) {
  const std::string expected = "'" + spec.name + "' must be " + spec.allowedDescription();
  const std::string got = ", got " + shown(value);
  // Stored configs are JSON, which holds text as UTF-8 only: other bytes are refused here.
  if (value.is_string() && !isUtf8(value.get_ref<const std::string&>()))
    return "'" + spec.name + "' must be UTF-8 text" + got;
  switch (spec.type) {
    case ParamType::Int:
    case ParamType::Float: {
      if (!value.is_number()) return expected + got;
      const double v = value.get<double>();
      if (!std::isfinite(v)) return expected + got;
      if (spec.type == ParamType::Int && std::floor(v) != v) return expected + got;
      const bool belowMin = spec.minimumExclusive ? v <= spec.minimum : v < spec.minimum;
      if (belowMin || v > spec.maximum) return expected + got;
      return std::nullopt;
    }
    case ParamType::Bool:
      if (!value.is_boolean()) return expected + got;
      return std::nullopt;
    case ParamType::Choice:
      if (!value.is_string()) return expected + got;
      for (const auto& c : spec.choices)
        if (c == value.get<std::string>()) return std::nullopt;
      return expected + got;
    case ParamType::Text:
      if (!value.is_string()) return expected + got;
      if (spec.textCheck) {
        if (auto error = spec.textCheck(value.get<std::string>()))
          return "'" + spec.name + "': " + *error;
      }
      return std::nullopt;
  }
  return expected + got;
}

bool isDecimalInteger(const std::string& text) {
  size_t i = text.size() > 0 && (text[0] == '+' || text[0] == '-') ? 1 : 0;
  if (i == text.size()) return false;
  for (; i < text.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
  return true;
}

bool isDecimalNumber(const std::string& text) {
  size_t i = text.size() > 0 && (text[0] == '+' || text[0] == '-') ? 1 : 0;
  size_t digits = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i, ++digits;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    size_t exponent = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i, ++exponent;
    if (exponent == 0) return false;
  }
  return i == text.size();
}

ParsedValue parseValue(const ParamSpec& spec, const std::string& text) {
  // Every message quotes the value as it was typed, never a converted one (an overflowed
  // integer is not -9223372036854775808, a NaN not "null").
  auto fail = [&](const std::string& why = "") {
    return ParsedValue{
        {},
        "'" + spec.name + "' must be " + spec.allowedDescription() + ", got '" + text + "'" + why};
  };
  // Said before anything else, and shown with U+FFFD: the message quotes the text as typed.
  if (!isUtf8(text)) return {{}, checkValue(spec, nlohmann::json(text))};
  nlohmann::json value;
  switch (spec.type) {
    case ParamType::Int: {
      if (!isDecimalInteger(text)) return fail();
      errno = 0;
      const long long v = std::strtoll(text.c_str(), nullptr, 10);
      if (errno == ERANGE) return fail();
      value = v;
      break;
    }
    case ParamType::Float: {
      if (!isDecimalNumber(text)) return fail();
      const double v = std::strtod(text.c_str(), nullptr);
      if (!std::isfinite(v)) return fail(" (too large)");
      value = v == 0 ? 0.0 : v;  // -0 is 0: one setting, one config hash
      break;
    }
    case ParamType::Bool:
      if (text == "true")
        value = true;
      else if (text == "false")
        value = false;
      else
        return fail();
      break;
    case ParamType::Choice:
    case ParamType::Text:
      value = text;
      break;
  }
  if (auto error = checkValue(spec, value)) {
    // Text values carry their own message (e.g. the device string's); numbers and choices are
    // said with the text as typed.
    if (spec.type == ParamType::Text) return {{}, error};
    return fail();
  }
  return {value, std::nullopt};
}

}  // namespace fl
