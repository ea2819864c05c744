#include "experiments/fope/fope_trial.h"

#include <algorithm>
#include <cmath>

#include <torch/torch.h>

#include "core/analysis/spectral_purity.h"
#include "core/engine/seeding.h"
#include "core/engine/tensor_values.h"
#include "core/metrics/binomial_interval.h"
#include "core/nn/transformer/rotary.h"
#include "core/text/passkey.h"
#include "core/text/passkey_prompt.h"

namespace fl::fope {

namespace {

std::vector<float> toFloats(const std::vector<int64_t>& v) { return {v.begin(), v.end()}; }

Snapshot byLength(std::string name, const std::vector<int64_t>& lengths,
                  const std::vector<double>& values, std::string valueLabel, std::string row) {
  Snapshot s;
  s.name = std::move(name);
  s.shape = {1, static_cast<int64_t>(values.size())};
  s.data.assign(values.begin(), values.end());
  s.axes = {{"run", "", {}}, {"evaluation length", "tokens", toFloats(lengths)}};
  s.valueLabel = std::move(valueLabel);
  s.meta["row_labels"] = {std::move(row)};
  return s;
}

int64_t spectrumProbeLength(const std::vector<int64_t>& evalLengths, int64_t trainLength) {
  // The longest evaluation length, at most four training lengths: long enough to resolve the
  // low frequencies, short enough to cost one forward pass of a few thousand tokens.
  const int64_t longest = evalLengths.empty() ? trainLength : evalLengths.back();
  return std::clamp<int64_t>(longest, trainLength, 4 * trainLength);
}

// The passkey settings a trial cannot run with (FopeExperiment::checkConfig says the same before
// a run exists), then the characters the vocabulary needs besides the corpus. Zero-shot: the
// prompt's and the digits, whichever characters the keys use, so a digits run and a letters run
// of one seed train the same model; trained-in: its own task's.
std::u32string passkeyVocabulary(const FopeSettings& s) {
  const std::string digits = std::to_string(s.passkeyDigits);
  if (s.zeroShot()) {
    if (s.passkeyMix > 0)
      throw std::invalid_argument(
          "passkey_protocol=zero-shot trains on the corpus alone, but passkey_mix is " +
          std::to_string(s.passkeyMix) + ": set passkey_mix=0 (or passkey_protocol=trained-in)");
    if (s.passkeyKeyChars == PasskeyKeyChars::Digits && s.passkeyDigits > 18)
      throw std::invalid_argument(
          "zero-shot digit keys (1 to 5 x 10^(n-1)) have at most 18 "
          "digits; passkey_digits is " +
          digits);
    return text::zeroShotPromptCharacters() + text::passkeyDigitCharacters();
  }
  if (s.passkeyKeyChars != PasskeyKeyChars::Digits)
    throw std::invalid_argument(
        "passkey_key_chars=letters is for passkey_protocol=zero-shot; the trained-in task's keys "
        "are digits");
  if (s.passkeyMix > 0 && s.lm.trainLength + 1 < text::minimumPasskeyLength(s.passkeyDigits))
    throw std::invalid_argument("passkey_mix > 0 needs train_len >= " +
                                std::to_string(text::minimumPasskeyLength(s.passkeyDigits) - 1) +
                                " for " + digits + "-digit keys (train_len is " +
                                std::to_string(s.lm.trainLength) +
                                "); lower passkey_digits or set passkey_mix=0");
  return text::passkeyAlphabet();
}

}  // namespace

nn::GptOptions fopeModelOptions(const FopeSettings& s) {
  nn::GptOptions o;
  o.position.kind = s.position;
  o.position.theta = s.ropeTheta;
  o.position.clipFloor = s.clipFloor;
  o.position.fopeGain = s.fopeGain;
  o.position.fopeLearnable = s.fopeLearnable;
  o.position.fopeAllPairs = s.fopeAllPairs;
  o.qkNorm = s.qkNorm;
  // Learned positions need a row for every evaluated position: rows past train_len are never
  // trained, which is what extrapolating absolute positions means.
  const auto lengths = s.evalLengths();
  o.position.maxLength = std::max(s.lm.trainLength, lengths.empty() ? 0 : lengths.back());
  return o;
}

FopeTrial::FopeTrial(const FopeSettings& settings, c10::Device device, uint64_t seed)
    : CharLmTrial(settings.lm, fopeModelOptions(settings), device, seed,
                  passkeyVocabulary(settings)),
      m_fope(settings),
      m_seed(seed),
      m_keyAlphabet(text::passkeyDigitCharacters()) {
  if (!settings.zeroShot()) return;
  // What the training split shows: a character it never holds has an untrained embedding.
  const auto& vocabulary = data().vocabulary();
  const auto counts = torch::bincount(data().train(), {}, vocabulary.size());
  const auto count = counts.accessor<int64_t, 1>();
  auto seen = [&](char32_t c) { return vocabulary.contains(c) && count[vocabulary.id(c)] > 0; };
  if (settings.passkeyKeyChars == PasskeyKeyChars::Letters) {
    m_keyAlphabet.clear();
    for (char32_t c = U'a'; c <= U'z'; ++c)
      if (seen(c)) m_keyAlphabet.push_back(c);
    if (m_keyAlphabet.size() < 2)
      throw std::invalid_argument(
          "passkey_key_chars=letters draws keys from the lowercase "
          "letters of the training text, which has " +
          std::to_string(m_keyAlphabet.size()) + "; use digits");
  }
  std::u32string asked = text::zeroShotPromptCharacters() + m_keyAlphabet;
  std::sort(asked.begin(), asked.end());
  asked.erase(std::unique(asked.begin(), asked.end()), asked.end());
  for (char32_t c : asked) m_unseenPasskeyCharacters += seen(c) ? 0 : 1;
}

std::pair<torch::Tensor, torch::Tensor> FopeTrial::nextBatch(std::mt19937_64& rng) {
  // Zero-shot: the corpus alone, as the paper pre-trains (passkey_mix is 0, checked).
  if (m_fope.zeroShot()) return CharLmTrial::nextBatch(rng);
  auto [inputs, targets] = CharLmTrial::nextBatch(rng);
  const int64_t rows = static_cast<int64_t>(std::lround(m_fope.passkeyMix * inputs.size(0)));
  const int64_t t = m_fope.lm.trainLength;
  for (int64_t r = 0; r < rows; ++r) {
    const auto sample = text::makePasskeySample(t + 1, m_fope.passkeyDigits, rng);
    const auto ids = data().vocabulary().encode(sample.text);
    auto row = torch::tensor(std::vector<int64_t>(ids.begin(), ids.end()), torch::kLong);
    inputs[r].copy_(row.narrow(0, 0, t));
    targets[r].copy_(row.narrow(0, 1, t));
  }
  return {inputs, targets};
}

double FopeTrial::perplexity(int64_t length) {
  const int64_t windows = std::max<int64_t>(1, m_fope.lm.evalTokens / length);
  auto [x, y] = data().validationWindows(windows, length);
  return std::exp(meanLoss(x, y));
}

FopeTrial::PasskeyScore FopeTrial::passkeyAccuracy(int64_t length, int64_t samples) {
  return m_fope.zeroShot() ? zeroShotPasskeyAccuracy(length, samples)
                           : trainedInPasskeyAccuracy(length, samples);
}

FopeTrial::PasskeyScore FopeTrial::zeroShotPasskeyAccuracy(int64_t length, int64_t samples) {
  // Its own stream per length: the same trials at every evaluation, independent across lengths.
  auto rng = makeStream(m_seed, ("passkey-zero-shot/" + std::to_string(length)).c_str());
  const auto& vocabulary = data().vocabulary();
  const bool digits = m_fope.passkeyKeyChars == PasskeyKeyChars::Digits;
  PasskeyScore score;
  score.trials = samples;
  int64_t right = 0, characters = 0;
  // In chunks, so the (N, T, V) log-probabilities of a thousand long prompts are never held.
  const int64_t chunk = std::max<int64_t>(1, evaluationChunk(length));
  for (int64_t first = 0; first < samples; first += chunk) {
    const int64_t n = std::min(chunk, samples - first);
    std::vector<text::ZeroShotPasskey> trials;
    auto inputs = torch::empty({n, length}, torch::kLong);
    for (int64_t i = 0; i < n; ++i) {
      const auto key = digits ? text::drawYarnKey(m_fope.passkeyDigits, rng)
                              : text::drawKeyFrom(m_keyAlphabet, m_fope.passkeyDigits, rng);
      trials.push_back(text::makeZeroShotPasskey(length, key, rng));
      const auto ids = vocabulary.encode(trials.back().text);
      inputs[i].copy_(torch::tensor(std::vector<int64_t>(ids.begin(), ids.end()), torch::kLong));
    }
    // The model reads the whole prompt, the key included: position t predicts character t + 1,
    // so answerAt - 1 .. length - 2 predict the key and length - 1 what follows it.
    const auto predicted = logProbabilities(inputs).argmax(-1).contiguous();
    const auto at = predicted.accessor<int64_t, 2>();
    for (int64_t i = 0; i < n; ++i) {
      const auto& t = trials[static_cast<size_t>(i)];
      std::u32string answer;
      for (int64_t p = t.answerAt - 1; p < length; ++p)
        answer.push_back(vocabulary.character(static_cast<int32_t>(at[i][p])));
      score.exactCount += text::zeroShotAnswerIsExact(t.key, answer, m_keyAlphabet) ? 1 : 0;
      for (size_t k = 0; k < t.key.size(); ++k) right += answer[k] == t.key[k] ? 1 : 0;
      characters += static_cast<int64_t>(t.key.size());
    }
  }
  score.exact = static_cast<double>(score.exactCount) / static_cast<double>(samples);
  score.digits = static_cast<double>(right) / static_cast<double>(characters);
  return score;
}

FopeTrial::PasskeyScore FopeTrial::trainedInPasskeyAccuracy(int64_t length, int64_t samples) {
  // Its own stream per length: the same samples at every evaluation, independent across lengths.
  auto rng = makeStream(m_seed, ("passkey-eval/" + std::to_string(length)).c_str());
  std::vector<text::PasskeySample> batch;
  auto inputs = torch::empty({samples, length}, torch::kLong);
  for (int64_t i = 0; i < samples; ++i) {
    // One character more than the context: the model reads `length` and predicts the key's end.
    batch.push_back(text::makePasskeySample(length + 1, m_fope.passkeyDigits, rng));
    const auto ids = data().vocabulary().encode(batch.back().text);
    inputs[i].copy_(torch::tensor(std::vector<int64_t>(ids.begin(), ids.end() - 1), torch::kLong));
  }
  auto predicted = logProbabilities(inputs).argmax(-1);  // (N, T): prediction of token t+1
  int64_t exact = 0, digits = 0;
  for (int64_t i = 0; i < samples; ++i) {
    const auto& s = batch[static_cast<size_t>(i)];
    int64_t right = 0;
    for (int64_t d = 0; d < m_fope.passkeyDigits; ++d) {
      const int64_t target = data().vocabulary().id(s.key[static_cast<size_t>(d)]);
      right += predicted[i][s.answerAt + d - 1].item<int64_t>() == target ? 1 : 0;
    }
    exact += right == m_fope.passkeyDigits ? 1 : 0;
    digits += right;
  }
  return {static_cast<double>(exact) / static_cast<double>(samples),
          static_cast<double>(digits) / static_cast<double>(samples * m_fope.passkeyDigits), exact,
          samples};
}

void FopeTrial::evaluate(int64_t, bool, EvalReport& out) {
  const auto lengths = m_fope.evalLengths();
  const std::string label = nn::toString(m_fope.position);
  std::vector<double> ppl, passkey, passkeyLow, passkeyHigh;
  std::vector<int64_t> passkeyLengths;
  for (int64_t length : lengths) {
    ppl.push_back(perplexity(length));
    out.metric("val/ppl@" + std::to_string(length), ppl.back());

    if (m_fope.testsPasskeyAt(length)) {
      const auto score = passkeyAccuracy(length, m_fope.passkeySamples);
      const auto interval = metrics::wilsonInterval(score.exactCount, score.trials);
      passkey.push_back(score.exact);
      passkeyLow.push_back(interval.low);
      passkeyHigh.push_back(interval.high);
      passkeyLengths.push_back(length);
      const std::string at = "@" + std::to_string(length);
      out.metric("passkey/acc" + at, score.exact);
      out.metric("passkey/acc_lo" + at, interval.low);  // 95% Wilson interval of acc
      out.metric("passkey/acc_hi" + at, interval.high);
      out.metric("passkey/digit_acc" + at, score.digits);
    }
  }
  if (m_fope.zeroShot()) out.metric("passkey/unseen_chars", m_unseenPasskeyCharacters);
  // val/loss at train_len ranks checkpoints, whether or not the factors include 1.
  const auto at = std::find(lengths.begin(), lengths.end(), m_fope.lm.trainLength);
  out.metric("val/loss", at != lengths.end()
                             ? std::log(ppl[static_cast<size_t>(at - lengths.begin())])
                             : std::log(perplexity(m_fope.lm.trainLength)));
  out.snapshot(byLength("ppl/by_length", lengths, ppl, "perplexity", label));
  if (!passkey.empty()) {
    // Its panel shows the latest; ppl/by_length is drawn over training too.
    // The 95% Wilson interval's ends beside it, as curves of their own.
    const std::pair<const char*, const std::vector<double>*> curves[] = {
        {"passkey/by_length", &passkey},
        {"passkey/acc_lo_by_length", &passkeyLow},
        {"passkey/acc_hi_by_length", &passkeyHigh}};
    for (const auto& [name, values] : curves) {
      auto byPasskeyLength = byLength(name, passkeyLengths, *values, "accuracy", label);
      byPasskeyLength.keep = SnapshotKeep::LatestStep;
      out.snapshot(std::move(byPasskeyLength));
    }
  }
  frequencySnapshots(out);
  spectrumMeter(out);
}

void FopeTrial::spectrumMeter(EvalReport& out) {
  const auto nominal = model()->position()->pairFrequencies();
  if (nominal.empty()) return;  // only rotary encodings give pairs a frequency
  const int64_t length = spectrumProbeLength(m_fope.evalLengths(), m_fope.lm.trainLength);
  const auto& blocks = model()->blocks();
  std::vector<torch::Tensor> purity(blocks.size());
  for (size_t l = 0; l < blocks.size(); ++l)
    blocks[l]->attention()->setQkObserver(
        [&purity, &nominal, l](const torch::Tensor& q, const torch::Tensor& k) {
          // Every head's queries and keys are signals of the same pairs: (2H, T, D).
          purity[l] = analysis::pairSpectralPurity(torch::cat({q[0], k[0]}, 0), nominal);
        });
  logProbabilities(data().validationWindows(1, length).first);
  for (const auto& block : blocks) block->attention()->setQkObserver(nullptr);

  const int64_t layers = static_cast<int64_t>(blocks.size());
  const int64_t pairs = static_cast<int64_t>(nominal.size());
  Snapshot s;
  s.name = "spectrum/purity";
  s.shape = {layers, pairs};
  std::vector<float> layerTicks, pairTicks;
  for (int64_t l = 0; l < layers; ++l) layerTicks.push_back(static_cast<float>(l));
  for (int64_t j = 0; j < pairs; ++j) pairTicks.push_back(static_cast<float>(j));
  s.axes = {{"layer", "", layerTicks}, {"dimension pair j", "", pairTicks}};
  s.valueLabel = "spectral purity";
  s.meta["probe_length"] = length;
  s.meta["nominal"] = nominal;
  s.keep = SnapshotKeep::LatestStep;  // its panel shows the latest; the curves keep the history
  for (int64_t l = 0; l < layers; ++l) {
    const auto row = purity[static_cast<size_t>(l)];
    for (int64_t j = 0; j < pairs; ++j) s.data.push_back(static_cast<float>(row[j].item<double>()));
    const auto finite = row.masked_select(row.isfinite());
    if (finite.numel() > 0)
      out.metric("spectrum/purity_L" + std::to_string(l), finite.mean().item<double>());
  }
  out.snapshot(std::move(s));
}

void FopeTrial::frequencySnapshots(EvalReport& out) const {
  auto position = model()->position();
  if (!position->isRotary()) return;
  const auto& base = position->baseFrequencies();
  const auto& used = position->frequencies();
  const int64_t pairs = static_cast<int64_t>(base.size());
  std::vector<float> pairIndex(base.size());
  Snapshot inUse, clipped;
  for (size_t j = 0; j < base.size(); ++j) pairIndex[j] = static_cast<float>(j);
  for (auto* s : {&inUse, &clipped}) {
    s->shape = {pairs};
    s->axes = {{"dimension pair j", "", pairIndex}};
    s->valueLabel = "frequency (rad/token)";
    s->meta["floor"] = nn::floorFrequency(m_fope.lm.trainLength);
    s->keep = SnapshotKeep::LatestStep;  // its panel shows the latest
  }
  inUse.name = "freq/in_use";
  clipped.name = "freq/clipped";
  for (size_t j = 0; j < base.size(); ++j) {
    inUse.data.push_back(static_cast<float>(used[j]));
    clipped.data.push_back(used[j] == 0.0 && base[j] > 0.0 ? static_cast<float>(base[j]) : 0.f);
  }
  out.snapshot(inUse);
  out.snapshot(clipped);

  if (auto fourier = position->fourier()) {
    const auto& kept = fourier->options().keptFrequencies;
    std::vector<float> keptTicks(kept.begin(), kept.end());
    std::vector<float> seriesPairs;
    for (int64_t j = 0; j < fourier->options().seriesPairs; ++j)
      seriesPairs.push_back(static_cast<float>(j));
    // Every layer's own set, layer by layer: (layers x heads, K, M), a slice per layer and head.
    const auto& layers = position->fourierLayers();
    const int64_t heads = fourier->options().heads;
    std::vector<std::string> sliceLabels;
    for (size_t l = 0; l < layers.size(); ++l)
      for (int64_t h = 0; h < heads; ++h)
        sliceLabels.push_back("layer " + std::to_string(l) + ", head " + std::to_string(h));
    for (const bool cosine : {true, false}) {
      std::vector<torch::Tensor> sets;
      for (const auto& layer : layers)
        sets.push_back(cosine ? layer->cosCoefficients() : layer->sinCoefficients());
      const auto coefficients = torch::cat(sets, 0);
      Snapshot s;
      s.name = cosine ? "fope/coef_cos" : "fope/coef_sin";
      s.shape = coefficients.sizes().vec();
      s.data = toFloatVector(coefficients);
      s.axes = {{layers.size() > 1 ? "layer x head" : "head", "", {}},
                {"frequency w_f", "rad/token", keptTicks},
                {"dimension pair j", "", seriesPairs}};
      s.valueLabel = "coefficient";
      if (layers.size() > 1) s.meta["row_labels"] = sliceLabels;
      out.snapshot(std::move(s));
    }
  }
}

}  // namespace fl::fope
