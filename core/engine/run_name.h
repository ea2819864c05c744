// The name a run gets where its user gives none: where its settings came from, and what was
// changed from them. The window and `fourierlab-cli run` name runs the same way, so a run reads
// the same in the Runs table, History and `runs list` whichever launched it.
//
//   settingsName("paper-fourier", preset, values)  // "paper-fourier, edited: epochs 2"
//   settingsName("", defaults, values)             // "defaults" or "defaults, edited: head linear"
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/param_spec.h"

namespace fl {

// `preset` (or "defaults" where it is empty) alone where `values` are `startValues`; otherwise
// followed by ", edited: " and the first changed settings with their new values (the keys
// sorted; more than three end in "and N more"). The device is left out: where a run trains is
// shown on its own, and it does not make the run another experiment.
std::string settingsName(const std::string& preset, const nlohmann::json& startValues,
                         const nlohmann::json& values);
// The same for a run of an experiment whose parameters are `specs`: a setting the run does not
// use is left out (a linear head's "frequencies 4" read as a Fourier head of N = 4), and the
// edits come in the order the Configure form lists them (the data, then the model, then the
// training), so the first three name what the run is before what it trained for.
std::string settingsName(const std::string& preset, const nlohmann::json& startValues,
                         const nlohmann::json& values, const std::vector<ParamSpec>& specs);

// The name without its ", edited: ..." part.
std::string withoutEdits(const std::string& name);

// The edits of such a name, one setting each: {"epochs 600", "samples 2000"} ("and 2 more" is
// one too). Each is read as a key of `config` and its value there, so a value holding ", "
// stays whole ("fourier_periods 2, 5, 10"). A legend of runs drops the ones every run shares,
// and labels each by the rest.
std::vector<std::string> editList(const std::string& name, const nlohmann::json& config);
// The name as a legend of `runs` runs reads it, `holders` saying how many of their names have
// each edit: without the word "edited", without the edits all of them have ("demo · epochs 600"
// of "demo, edited: epochs 600, samples 2000" beside "demo, edited: epochs 5000, samples
// 2000"; "demo" where none is left), the edits fewer runs have last, where a name cut to a
// legend's width keeps its end ("demo · samples 2000, epochs 600" beside runs without edits),
// and "and N more" only where no edit is left to name and the name before the edits is
// another run's too (`nameTellsApart` false): "RoPE" beside "FoPE" needs no "· 1 more".
// `apart`: the settings that set the legend's runs apart (their config diff). Where the name
// leaves edits to "and N more", those of them it does not name are named in its place, with the
// run's values: "demo · dataset beta, head gmm" had hidden the lr 0.003 that told it apart.
std::string compactName(const std::string& name, const nlohmann::json& config,
                        const std::map<std::string, int>& holders, int runs,
                        bool nameTellsApart = false, const std::vector<std::string>& apart = {});

// One run of a legend: its name, its legend name so far (compactName), its config, and the
// settings that set the legend's runs apart which it uses.
struct LegendRun {
  std::string name;
  std::string legend;
  const nlohmann::json* config = nullptr;
  std::vector<std::string> apart;
};
// A run named without edits ("defaults") beside namesakes whose legends name settings
// ("defaults · frequencies 4", "defaults · frequencies 8") names its own values of them:
// "defaults · frequencies 12". It had read as though nothing set it apart, while its default N
// did. Only settings in the run's `apart`, and only for runs of one name before the edits.
void nameWhatNamesakesName(std::vector<LegendRun>& runs);

// Run ids as a sentence names them: "run 7", "runs 3 and 4", "runs 3, 4, 5 and 261 more".
std::string nameRunIds(const std::vector<int64_t>& ids);

}  // namespace fl
