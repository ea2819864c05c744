// ParamSpec: one declared parameter of an experiment (name, type, default, range or choices,
// help). Experiments declare a list of these; the config validator, the CLI's --set parser and
// the GUI's generated form all read the same list, so a new experiment needs no front-end code.
//
//   ParamSpec::integer("epochs", 500, 1, 100000, "Passes over the training set (paper: 500)")
//   ParamSpec::choice("head", "fourier", {"linear", "fourier", "gmm"}, "Classification head")
#pragma once

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fl {

enum class ParamType { Int, Float, Bool, Choice, Text };

std::string toString(ParamType type);

// When a value may change while a run is live (the GUI shows these apart from those that need
// a restart, such as the architecture).
enum class Mutability { RestartRequired, Live };

// A parameter that matters only while another one has one of some values: a Fourier head's
// frequencies mean nothing to the linear head. The form greys such a parameter then, and
// comparisons of runs leave its value out, so two linear runs never look different by a value
// neither used.
struct ParamCondition {
  std::string key;                  // the choice or flag it depends on
  std::vector<std::string> values;  // the values that use it (a flag's: "true" or "false")
};

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::Float;
  nlohmann::json defaultValue;
  double minimum = -std::numeric_limits<double>::infinity();
  double maximum = std::numeric_limits<double>::infinity();
  bool minimumExclusive = false;  // e.g. a learning rate must be > 0
  std::vector<std::string> choices;
  std::string help;
  std::string group = "model";  // form section: "data", "model", "training", "run"
  Mutability mutability = Mutability::RestartRequired;
  bool logScale = false;  // a hint for the GUI's spin boxes / sliders
  // Extra syntax check for Text values (e.g. the device string); returns an error message.
  std::function<std::optional<std::string>(const std::string&)> textCheck;
  std::optional<ParamCondition> condition;  // none: every run uses it
  // A Text value that names a file: stored absolute (validateConfig resolves it against the
  // working directory), so the run reads the same file wherever it is resumed from.
  bool isFilePath = false;

  static ParamSpec integer(std::string name, long long defaultValue, long long minimum,
                           long long maximum, std::string help);
  static ParamSpec real(std::string name, double defaultValue, double minimum, double maximum,
                        std::string help);
  static ParamSpec choice(std::string name, std::string defaultValue,
                          std::vector<std::string> choices, std::string help);
  static ParamSpec flag(std::string name, bool defaultValue, std::string help);
  static ParamSpec text(std::string name, std::string defaultValue, std::string help);

  // Chainable adjustments, so a declaration stays one readable expression.
  ParamSpec& inGroup(std::string g);
  ParamSpec& exclusiveMinimum();
  ParamSpec& live();
  ParamSpec& logarithmic();
  ParamSpec& usedOnlyWhen(std::string key, std::vector<std::string> values);
  ParamSpec& namesAFile();

  // "used only when head is fourier", "used only when variant is fourier or multi"; "" when
  // the parameter has no condition.
  std::string conditionDescription() const;

  // The allowed values in words: "an integer in [1, 100000]", "one of linear, fourier, gmm".
  std::string allowedDescription() const;
};

// Checks one JSON value against a spec. Returns an error message naming the key and the allowed
// values, or nothing when the value is acceptable. Integers given as 3.0 are accepted for Int.
std::optional<std::string> checkValue(const ParamSpec& spec, const nlohmann::json& value);

// Parses the text of a --set KEY=VALUE (or a GUI field) according to the spec's type, strictly:
// integers in decimal digits only, numbers in decimal notation and finite, booleans `true` or
// `false`. Returns the JSON value, or an error message naming the key and quoting the text.
// Strict number syntax, as one types a value, with no surrounding spaces: an integer is an
// optional sign and decimal digits ("0x10", "1e3" are not); a number is decimal, with an
// optional fraction and exponent (3, -2.5, .5, 1e-3), never "inf", "nan" or hex.
bool isDecimalInteger(const std::string& text);
bool isDecimalNumber(const std::string& text);

struct ParsedValue {
  nlohmann::json value;
  std::optional<std::string> error;
};
ParsedValue parseValue(const ParamSpec& spec, const std::string& text);

}  // namespace fl
