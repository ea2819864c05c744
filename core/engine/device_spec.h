// DeviceSpec: the user's device choice, `auto | cpu | cuda | cuda:N`, parsed without torch so
// that config validation and front ends can check it. core/engine/device.h resolves it to a
// torch::Device once LibTorch is asked what is available.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fl {

struct DeviceSpec {
  enum class Kind { Auto, Cpu, Cuda };
  Kind kind = Kind::Auto;
  int index = -1;  // CUDA ordinal; -1 means the default device
};

// Parses the text; returns nothing and fills *error on malformed input.
std::optional<DeviceSpec> parseDeviceSpec(const std::string& text, std::string* error = nullptr);

// The message for a malformed device string, or nothing when it parses.
std::optional<std::string> checkDeviceSpec(const std::string& text);

// One entry of a device picker: the value a config takes ("auto", "cpu", "cuda:0"), what the
// picker shows ("cuda:0 — NVIDIA H200, 140 GiB"), and why it cannot be chosen (empty when it
// can): on a machine without CUDA the picker still lists "cuda", greyed, with the reason.
struct DeviceChoice {
  std::string value;
  std::string label;
  std::string unavailableReason;
};

// auto, cpu, then one entry per CUDA device LibTorch sees (or one greyed "cuda" when none).
// (Declared here, torch-free, for the GUI; defined with the torch code in device.cpp.)
std::vector<DeviceChoice> deviceChoices();

// The picker's value for a device the user typed ("cuda" is "cuda:0", "auto" stays "auto"), or
// nothing with *error: resolveDevice's refusal (malformed, or a device this machine lacks,
// naming those it has). Torch-free for the GUI's command line; defined in device.cpp.
std::optional<std::string> pickerValueFor(const std::string& text, std::string* error);

}  // namespace fl
