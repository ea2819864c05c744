// Tests core/nn/transformer: position encodings against their formulas and properties, FoPE's
// reduction to RoPE and its coefficients per layer, floor clipping, ALiBi's slopes, and
// causality of the whole model.
#include <QtTest>

#include <cmath>

#include <torch/torch.h>

#include "core/nn/qk_filters/spectral_filter.h"
#include "core/nn/transformer/alibi.h"
#include "core/nn/transformer/causal_self_attention.h"
#include "core/nn/transformer/fourier_position.h"
#include "core/nn/transformer/gpt.h"
#include "core/nn/transformer/mixed_precision.h"
#include "core/nn/transformer/position_encoding.h"
#include "core/nn/transformer/rotary.h"

using namespace fl::nn;

namespace {

PositionOptions positionOptions(PositionKind kind, int64_t d = 32, int64_t heads = 2) {
  PositionOptions o;
  o.kind = kind;
  o.dModel = d;
  o.heads = heads;
  o.trainLength = 16;
  o.maxLength = 64;
  return o;
}

double maxAbs(const torch::Tensor& t) { return t.abs().max().item<double>(); }

// A small model for comparing attention kernels and precisions: every position encoding, with
// and without a FourierQK spectral filter in front of the attention.
GptOptions kernelTestModel(PositionKind kind, bool spectralFilter) {
  GptOptions o;
  o.vocabSize = 13;
  o.dModel = 32;
  o.heads = 4;
  o.layers = 2;
  o.position.kind = kind;
  o.position.trainLength = 16;
  o.position.maxLength = 32;
  if (spectralFilter)
    o.qkFilter = [](int64_t) {
      return std::make_shared<GaussianBandFilterImpl>(4, 32, 1, 2.0, std::vector<double>{3.0});
    };
  return o;
}

// A model of 4 heads over learned positions, as the FourierQK author's GPT has them.
GptOptions learnedPositionModel(int64_t dModel, int64_t layers) {
  GptOptions o;
  o.vocabSize = 13;
  o.dModel = dModel;
  o.heads = 4;
  o.layers = layers;
  o.position.kind = PositionKind::Learned;
  o.position.trainLength = 16;
  o.position.maxLength = 16;
  return o;
}

// A FoPE model of head size 16 without clipping: K = 8 kept frequencies onto M = 4 pairs, so
// each layer's coefficients are two (2 heads, 8, 4) matrices.
GptOptions fopeModel(int64_t layers, bool learnable) {
  GptOptions o;
  o.vocabSize = 13;
  o.dModel = 32;
  o.heads = 2;
  o.layers = layers;
  o.position.kind = PositionKind::Fope;
  o.position.trainLength = 16;
  o.position.maxLength = 32;
  o.position.fopeLearnable = learnable;
  return o;
}
constexpr int64_t kFopeSetSize = 2 * 2 * 8 * 4;  // cos and sin, (heads, K, M) each

// Every layer's (cos, sin) coefficients, copied.
std::vector<std::pair<torch::Tensor, torch::Tensor>> fopeSets(const Gpt& model) {
  std::vector<std::pair<torch::Tensor, torch::Tensor>> sets;
  for (const auto& f : model->position()->fourierLayers())
    sets.push_back({f->cosCoefficients().detach().clone(), f->sinCoefficients().detach().clone()});
  return sets;
}

// Logits and the gradient of a fixed loss with respect to every parameter, flattened.
std::pair<torch::Tensor, torch::Tensor> logitsAndGradient(Gpt& model, const torch::Tensor& tokens) {
  model->zero_grad();
  auto logits = model->forward(tokens);
  (logits * torch::linspace(-1, 1, logits.size(-1))).sum().backward();
  std::vector<torch::Tensor> grads;
  for (const auto& p : model->parameters())
    if (p.grad().defined()) grads.push_back(p.grad().reshape({-1}).clone());
  return {logits.detach(), torch::cat(grads)};
}

}  // namespace

class TestTransformer : public QObject {
  Q_OBJECT

 private slots:
  // The FourierQK author's GPT beside nanoGPT's: MLP biases (zero at the start), every matrix at
  // N(0, 0.02), and dropout on the attention weights only; the defaults are nanoGPT's.
  void theAuthorsModelDetailsAreOptions() {
    torch::manual_seed(5);
    GptOptions o = learnedPositionModel(256, 6);
    auto std = [](const torch::Tensor& w) { return w.std().item<double>(); };
    {
      Gpt nano(o);
      const auto& mlp = nano->blocks().front()->mlp();
      QVERIFY(!mlp->outputProjection()->bias.defined());
      // 0.02 / sqrt(12) = 0.00577, over 65,536 draws: within 2%.
      QVERIFY(std::abs(std(nano->blocks().front()->attention()->outputProjection()->weight) /
                           0.0057735 -
                       1) < 0.02);
    }
    o.mlpBias = true;
    o.scaledResidualInit = false;
    Gpt authors(o);
    for (const auto& block : authors->blocks()) {
      const auto& bias = block->mlp()->outputProjection()->bias;
      QVERIFY(bias.defined());
      QCOMPARE(bias.abs().max().item<double>(), 0.0);
      QVERIFY(std::abs(std(block->attention()->outputProjection()->weight) / 0.02 - 1) < 0.02);
      QVERIFY(std::abs(std(block->mlp()->outputProjection()->weight) / 0.02 - 1) < 0.02);
    }
    // At one seed, with or without the biases, every other parameter starts the same: an
    // on/off comparison compares the biases, not two starts.
    {
      GptOptions without = o;
      without.mlpBias = false;
      torch::manual_seed(9);
      Gpt a(without);
      torch::manual_seed(9);
      Gpt b(o);
      const auto withBiases = b->named_parameters();
      for (const auto& p : a->named_parameters())
        QVERIFY2(torch::equal(p.value(), withBiases[p.key()]), p.key().c_str());
    }
    // Biases are parameters: the up and down projections' 4d + d more per layer.
    GptOptions plain = o;
    plain.mlpBias = false;
    QCOMPARE(authors->parameterCount() - Gpt(plain)->parameterCount(),
             int64_t(6 * (4 * 256 + 256)));
  }

  void attentionOutputDropoutIsAnOption() {
    torch::manual_seed(6);
    GptOptions o = learnedPositionModel(32, 1);
    o.dropout = 0.5;
    const auto x = torch::randn({4, 16, 32});
    auto zeros = [&](bool outputDropout) {
      o.attentionOutputDropout = outputDropout;
      Gpt model(o);
      model->train();
      const auto y = model->blocks().front()->attention()->forward(x);
      return (y == 0).to(torch::kDouble).mean().item<double>();
    };
    // Dropped on the output, about half its values are zero. On the weights alone, only the
    // rows whose every weight was dropped are (the first token's one weight half the time:
    // about 1/16 of the rows here).
    const double both = zeros(true), weightsOnly = zeros(false);
    QVERIFY2(both > 0.45 && both < 0.62, std::to_string(both).c_str());
    QVERIFY2(weightsOnly < 0.15, std::to_string(weightsOnly).c_str());
  }

  void ropeScoresDependOnlyOnRelativePosition() {
    // Shift query and key positions together: the same scores, for random vectors.
    torch::manual_seed(1);
    const auto w = ropeFrequencies(16, 10000);
    for (int trial = 0; trial < 20; ++trial) {
      auto q = torch::randn({1, 16}, torch::kDouble);
      auto k = torch::randn({1, 16}, torch::kDouble);
      const int64_t i = trial * 7 % 50, j = trial * 3 % 40, shift = 13 + trial * 11;
      auto score = [&](int64_t pi, int64_t pj) {
        auto a = rotaryAngles(w, 1, pi);
        auto b = rotaryAngles(w, 1, pj);
        return (rotatePairs(q, torch::cos(a), torch::sin(a)) *
                rotatePairs(k, torch::cos(b), torch::sin(b)))
            .sum()
            .item<double>();
      };
      QVERIFY(std::abs(score(i, j) - score(i + shift, j + shift)) < 1e-9);
    }
  }

  void ropeScoreMatrixIsToeplitzThroughTheModule() {
    // The same q and k at every position: score(i, j) must depend on i - j only.
    PositionEncoding rope(positionOptions(PositionKind::Rope));
    auto q = torch::randn({1, 2, 1, 16}).expand({1, 2, 12, 16}).contiguous();
    auto k = torch::randn({1, 2, 1, 16}).expand({1, 2, 12, 16}).contiguous();
    auto [rq, rk] = rope->rotate(q, k);
    auto s = torch::matmul(rq, rk.transpose(-2, -1))[0];  // (H, T, T)
    for (int64_t d = -11; d <= 11; ++d) {
      auto diagonal = s.diagonal(d, -2, -1);
      QVERIFY(maxAbs(diagonal - diagonal.select(-1, 0).unsqueeze(-1)) < 1e-4);
    }
    // And it is not constant across diagonals (positions matter at all).
    QVERIFY(std::abs(s[0][5][5].item<double>() - s[0][5][0].item<double>()) > 1e-3);
  }

  void ropeRotationMatchesTheFormula() {
    const auto w = ropeFrequencies(8, 10000);
    QCOMPARE(w.size(), size_t(4));
    QVERIFY(std::abs(w[0] - 1.0) < 1e-12);
    QVERIFY(std::abs(w[3] - std::pow(10000.0, -6.0 / 8.0)) < 1e-12);
    auto x = torch::arange(8, torch::kDouble).view({1, 8}) + 1;
    auto a = rotaryAngles(w, 1, 5);
    auto y = rotatePairs(x, torch::cos(a), torch::sin(a));
    for (int j = 0; j < 4; ++j) {  // pair (x_j, x_{j+4}) rotated by 5 w_j
      const double c = std::cos(5 * w[j]), s = std::sin(5 * w[j]);
      const double x1 = j + 1, x2 = j + 5;
      QVERIFY(std::abs(y[0][j].item<double>() - (x1 * c - x2 * s)) < 1e-9);
      QVERIFY(std::abs(y[0][j + 4].item<double>() - (x2 * c + x1 * s)) < 1e-9);
    }
  }

  void fopeWithIdentityCoefficientsAndNoClippingEqualsRope() {
    auto o = positionOptions(PositionKind::Fope, 64, 4);
    o.fopeAllPairs = true;
    o.clipFloor = false;
    PositionEncoding fope(o);
    fope->fourier()->resetToIdentity();
    PositionEncoding rope(positionOptions(PositionKind::Rope, 64, 4));
    auto q = torch::randn({2, 4, 40, 16});
    auto k = torch::randn({2, 4, 40, 16});
    auto [fq, fk] = fope->rotate(q, k);
    auto [rq, rk] = rope->rotate(q, k);
    QVERIFY2(maxAbs(fq - rq) < 1e-5, qPrintable(QString::number(maxAbs(fq - rq))));
    QVERIFY(maxAbs(fk - rk) < 1e-5);
    // With the official random initialisation it is no longer RoPE.
    o.fopeAllPairs = true;
    PositionEncoding noisy(o);
    QVERIFY(maxAbs(noisy->rotate(q, k).first - rq) > 1e-2);
  }

  void fopeStepIdentityFollowsTheOfficialRule() {
    // K = 10 kept frequencies onto M = 4 pairs: pair j starts on frequency j * ceil(10 / 4).
    FourierPositionOptions o;
    o.heads = 2;
    o.headDim = 16;
    for (int f = 0; f < 10; ++f) o.keptFrequencies.push_back(1.0 / (f + 1));
    o.seriesPairs = 4;
    o.gain = 0.0;
    FourierPosition fope(o);
    auto c = fope->cosCoefficients()[1];
    for (int64_t f = 0; f < 10; ++f)
      for (int64_t j = 0; j < 4; ++j) QCOMPARE(c[f][j].item<double>(), f == 3 * j ? 1.0 : 0.0);
    // The pairs past M get the official padding: both factors 1 at every position.
    auto [cos, sin] = fope->factors(7);
    QCOMPARE(cos.sizes().vec(), (std::vector<int64_t>{2, 7, 8}));
    QCOMPARE(maxAbs(cos.narrow(-1, 4, 4) - 1.0), 0.0);
    QCOMPARE(maxAbs(sin.narrow(-1, 4, 4) - 1.0), 0.0);
    QVERIFY(maxAbs(cos[0].select(-1, 1) -
                   torch::cos(torch::arange(7, torch::kDouble) / 4.0).to(torch::kFloat)) < 1e-6);
  }

  // As the official code builds its Fourier embedding in every block: each layer its own cos and
  // sin matrices, the model's only FoPE parameters, each used by its own layer.
  void fopeCoefficientsAreOneSetPerLayer() {
    torch::manual_seed(4);
    Gpt model(fopeModel(3, /*learnable=*/true));
    const auto sets = fopeSets(model);
    QCOMPARE(sets.size(), size_t(3));
    for (size_t a = 0; a < sets.size(); ++a) {
      QCOMPARE(sets[a].first.sizes().vec(), (std::vector<int64_t>{2, 8, 4}));
      QVERIFY(maxAbs(sets[a].first - sets[a].second) > 1e-2);  // cos and sin: their own draws
      for (size_t b = a + 1; b < sets.size(); ++b) {
        QVERIFY2(maxAbs(sets[a].first - sets[b].first) > 1e-2,
                 qPrintable(QString("layers %1 and %2 share C_cos").arg(a).arg(b)));
        QVERIFY2(maxAbs(sets[a].second - sets[b].second) > 1e-2,
                 qPrintable(QString("layers %1 and %2 share C_sin").arg(a).arg(b)));
      }
    }
    // Layers x one set: the parameters named for FoPE, and all the model has beyond RoPE's.
    int64_t fopeTensors = 0, fopeNumbers = 0;
    for (const auto& p : model->named_parameters())
      if (p.key().find("fourier") != std::string::npos) {
        ++fopeTensors;
        fopeNumbers += p.value().numel();
      }
    QCOMPARE(fopeTensors, int64_t(3 * 2));
    QCOMPARE(fopeNumbers, 3 * kFopeSetSize);
    auto ropeOptions = fopeModel(3, true);
    ropeOptions.position.kind = PositionKind::Rope;
    QCOMPARE(model->parameterCount() - Gpt(ropeOptions)->parameterCount(), 3 * kFopeSetSize);
    // Fixed: the same sets as buffers, none a parameter.
    torch::manual_seed(4);
    Gpt fixed(fopeModel(3, /*learnable=*/false));
    QCOMPARE(fixed->parameterCount(), Gpt(ropeOptions)->parameterCount());
    int64_t fopeBuffers = 0;
    for (const auto& b : fixed->named_buffers())
      fopeBuffers += b.key().find("fourier") != std::string::npos ? b.value().numel() : 0;
    QCOMPARE(fopeBuffers, 3 * kFopeSetSize);

    // Each layer rotates with its own set: every set gets a gradient, each a different one.
    auto tokens = torch::randint(13, {2, 12}, torch::kLong);
    model->forward(tokens).pow(2).mean().backward();
    const auto& layers = model->position()->fourierLayers();
    for (const auto& f : layers)
      QVERIFY(f->cosCoefficients().grad().defined() && maxAbs(f->cosCoefficients().grad()) > 0 &&
              maxAbs(f->sinCoefficients().grad()) > 0);
    QVERIFY(maxAbs(layers[0]->cosCoefficients().grad() - layers[1]->cosCoefficients().grad()) > 0);
    // And rotate(q, k, l) is the rotation by set l's factors.
    auto q = torch::randn({1, 2, 12, 16});
    for (int64_t l = 0; l < 3; ++l) {
      torch::NoGradGuard noGrad;
      auto [cos, sin] = layers[static_cast<size_t>(l)]->factors(12);
      QVERIFY(maxAbs(model->position()->rotate(q, q, l).first - rotatePairs(q, cos, sin)) < 1e-6);
    }
    QVERIFY(maxAbs(model->position()->rotate(q, q, 0).first -
                   model->position()->rotate(q, q, 1).first) > 1e-3);
  }

  // The sets are drawn from the global generator (the run's seed) in layer order: the same seed
  // gives the same sets, another seed others, and a deeper model the same first layers.
  void fopeCoefficientsAreDrawnInLayerOrderFromTheSeed() {
    auto draw = [](uint64_t seed, int64_t layers) {
      torch::manual_seed(seed);
      return fopeSets(Gpt(fopeModel(layers, false)));
    };
    const auto a = draw(7, 3), again = draw(7, 3), other = draw(8, 3);
    const auto one = draw(7, 1), two = draw(7, 2);
    for (size_t l = 0; l < 3; ++l) {
      QVERIFY(torch::equal(a[l].first, again[l].first) &&
              torch::equal(a[l].second, again[l].second));
      QVERIFY(!torch::equal(a[l].first, other[l].first));
      QVERIFY(!torch::equal(a[l].second, other[l].second));
    }
    QVERIFY(torch::equal(one[0].first, a[0].first) && torch::equal(one[0].second, a[0].second));
    QVERIFY(torch::equal(two[1].first, a[1].first) && torch::equal(two[1].second, a[1].second));
    QVERIFY(!torch::equal(a[0].first, a[1].first));
  }

  void floorClippingZeroesExactlyTheFrequenciesBelowTwoPiOverTrainLength() {
    for (int64_t trainLength : {8, 16, 64, 512}) {
      auto o = positionOptions(PositionKind::Rope, 128, 2);
      o.trainLength = trainLength;
      o.clipFloor = true;
      PositionEncoding rope(o);
      const double floor = 2 * M_PI / static_cast<double>(trainLength);
      const auto& base = rope->baseFrequencies();
      const auto& used = rope->frequencies();
      int clipped = 0;
      for (size_t j = 0; j < base.size(); ++j) {
        const double expected = std::pow(10000.0, -2.0 * j / 64.0);
        QVERIFY(std::abs(base[j] - expected) < 1e-12);
        if (expected < floor) {
          QCOMPARE(used[j], 0.0);
          ++clipped;
        } else {
          QCOMPARE(used[j], base[j]);
        }
      }
      QVERIFY(clipped > 0);
      // FoPE drops the clipped ones from its series and keeps the others.
      o.kind = PositionKind::Fope;
      PositionEncoding fope(o);
      QCOMPARE(fope->fourier()->options().keptFrequencies.size(), base.size() - clipped);
      QCOMPARE(fope->fourier()->options().seriesPairs,
               std::min<int64_t>(static_cast<int64_t>(base.size()) - clipped, 64 / 4));
    }
  }

  void clippedRopePairsAreNotRotated() {
    auto o = positionOptions(PositionKind::Rope, 32, 2);
    o.trainLength = 4;
    o.clipFloor = true;
    PositionEncoding rope(o);
    auto q = torch::randn({1, 2, 10, 16});
    auto [rq, rk] = rope->rotate(q, q);
    const auto& used = rope->frequencies();
    for (size_t j = 0; j < used.size(); ++j) {
      if (used[j] != 0.0) continue;
      QVERIFY(maxAbs(rq.select(-1, j) - q.select(-1, j)) < 1e-6);
      QVERIFY(maxAbs(rq.select(-1, j + 8) - q.select(-1, j + 8)) < 1e-6);
    }
  }

  void alibiSlopesAndBiasesMatchThePaper() {
    const auto eight = alibiSlopes(8);
    for (int h = 0; h < 8; ++h) QVERIFY(std::abs(eight[h] - std::pow(2.0, -(h + 1))) < 1e-12);
    // Six heads: the four of 4 heads, then every other slope of 8 heads (reference code).
    const std::vector<double> six{0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125};
    const auto got = alibiSlopes(6);
    for (int h = 0; h < 6; ++h) QVERIFY(std::abs(got[h] - six[h]) < 1e-12);
    auto bias = alibiBias(eight, 10, torch::kDouble);
    for (int h = 0; h < 8; ++h)
      for (int i = 0; i < 10; ++i)
        for (int j = 0; j <= i; ++j)
          QVERIFY(std::abs(bias[h][i][j].item<double>() + eight[h] * (i - j)) < 1e-12);
  }

  void theModelIsCausalForEveryPositionEncoding() {
    for (const auto& name : positionKindNames()) {
      torch::manual_seed(2);
      GptOptions o;
      o.vocabSize = 11;
      o.dModel = 32;
      o.heads = 4;
      o.layers = 2;
      o.position.kind = *parsePositionKind(name);
      o.position.trainLength = 8;
      o.position.maxLength = 24;
      o.position.clipFloor = true;
      Gpt model(o);
      model->eval();
      auto tokens = torch::randint(11, {3, 24}, torch::kLong);
      auto before = model->forward(tokens);
      for (int64_t t : {0, 5, 17, 23}) {
        auto changed = tokens.clone();
        changed.narrow(1, t, 24 - t).random_(11);
        auto after = model->forward(changed);
        if (t > 0)
          QVERIFY2(maxAbs(after.narrow(1, 0, t) - before.narrow(1, 0, t)) < 1e-5,
                   qPrintable(QString::fromStdString(name) + " leaks into positions before " +
                              QString::number(t)));
        QVERIFY(maxAbs(after.narrow(1, t, 24 - t) - before.narrow(1, t, 24 - t)) > 1e-4);
      }
    }
  }

  void learnedPositionsRefuseLengthsPastTheirTable() {
    GptOptions o;
    o.vocabSize = 5;
    o.dModel = 16;
    o.heads = 2;
    o.layers = 1;
    o.position.kind = PositionKind::Learned;
    o.position.maxLength = 8;
    Gpt model(o);
    try {
      model->forward(torch::zeros({1, 9}, torch::kLong));
      QFAIL("expected an error");
    } catch (const c10::Error& e) {
      QVERIFY(QString(e.what()).contains("learned positions cover 8 tokens; asked for 9"));
    }
  }

  void flopsPerTokenCountsEveryMatmul() {
    GptOptions o;
    o.vocabSize = 65;
    o.dModel = 128;
    o.heads = 4;
    o.layers = 2;
    Gpt model(o);
    // Per layer: qkv 3d^2 + out d^2 + MLP 8 d^2 MACs, QK^T and AV 2 T d; head d V.
    const double macs = 2 * (12.0 * 128 * 128 + 2.0 * 64 * 128) + 128.0 * 65;
    QCOMPARE(model->trainingFlopsPerToken(64), 6 * macs);
    // And the parameter count of those matrices plus embeddings and norms.
    QCOMPARE(model->parameterCount(), int64_t(2 * 12 * 128 * 128 + 2 * 65 * 128 + 5 * 128));
  }

  void sublayerHookSeesAndReplacesEveryOutput() {
    GptOptions o;
    o.vocabSize = 7;
    o.dModel = 16;
    o.heads = 2;
    o.layers = 3;
    Gpt model(o);
    model->eval();
    auto tokens = torch::randint(7, {2, 5}, torch::kLong);
    int calls = 0;
    auto zeroAll = [&](int64_t, Sublayer, torch::Tensor out) {
      ++calls;
      return torch::zeros_like(out);
    };
    auto ablated = model->forward(tokens, zeroAll);
    QCOMPARE(calls, 6);
    // With every sublayer removed, the logits are the unembedded normalised token embedding.
    auto direct = torch::matmul(
        torch::nn::functional::normalize(model->tokenEmbedding()->forward(tokens),
                                         torch::nn::functional::NormalizeFuncOptions().dim(-1)) *
            std::sqrt(16.0),
        model->unembedding().t());
    QVERIFY(maxAbs(ablated - direct) < 1e-3);
  }

  // The GPU's attention (PyTorch's fused scaled-dot-product kernel) against ours and the plain
  // formula, in float32 on the CPU where all three run: the same logits and gradients for every
  // position encoding (ALiBi through its float mask) and with a FourierQK filter in front.
  void fusedBlockedAndPlainAttentionAgreeForEveryVariant() {
    for (const auto& name : positionKindNames()) {
      for (bool filter : {false, true}) {
        torch::manual_seed(5);
        Gpt model(kernelTestModel(*parsePositionKind(name), filter));
        auto tokens = torch::randint(13, {2, 32}, torch::kLong);
        model->setAttentionKernel(AttentionKernel::Blocked);
        const auto [blocked, blockedGrad] = logitsAndGradient(model, tokens);
        for (auto kernel : {AttentionKernel::Fused, AttentionKernel::Plain}) {
          model->setAttentionKernel(kernel);
          const auto [logits, grad] = logitsAndGradient(model, tokens);
          const QString what = QString::fromStdString(name) + (filter ? " + filter" : "") +
                               (kernel == AttentionKernel::Fused ? " fused" : " plain");
          QVERIFY2(maxAbs(logits - blocked) < 1e-5, qPrintable(what + ": logits"));
          QVERIFY2(maxAbs(grad - blockedGrad) < 1e-5 * (1 + maxAbs(blockedGrad)),
                   qPrintable(what + ": gradients"));
        }
      }
    }
  }

  // What the fused attention kernels are handed for q and k: v's precision with contiguous rows
  // (a last stride of 1, which SDPA's fused kernels require), the values of a plain cast, and no
  // copy when the input already fits. Random shapes, q laid out as after an FFT along T.
  void attentionInputsAreCastToVsPrecisionWithContiguousRows() {
    torch::manual_seed(3);
    for (int trial = 0; trial < 20; ++trial) {
      auto size = [] { return torch::randint(1, 9, {1}).item<int64_t>(); };
      const int64_t B = size(), H = size(), T = size() + 1, D = size() + 1;
      const auto q = torch::randn({B, H, D, T}).transpose(-2, -1);  // T innermost
      for (const auto dtype : {torch::kBFloat16, torch::kFloat}) {
        const auto v = torch::randn({B, H, T, D}).to(dtype);
        const auto fed = asFusedAttentionInput(q, v);
        QCOMPARE(fed.scalar_type(), dtype);
        QCOMPARE(fed.stride(-1), int64_t(1));
        QVERIFY(fed.is_contiguous());
        QVERIFY(torch::equal(fed, q.to(dtype)));
        const auto fitting = torch::randn({B, H, T, D}).to(dtype);
        QCOMPARE(asFusedAttentionInput(fitting, v).data_ptr(), fitting.data_ptr());
      }
    }
  }

  // bf16 autocast (what the GPU trains with) against float32, here on the CPU's own autocast:
  // logits within 3% of their range. The filters, rotations and ALiBi's bias run in float32
  // inside it, so the gap is the bf16 rounding of the matrix products alone; without that the
  // FourierQK filter's FFT would run in bf16 and ALiBi's bias be rounded to steps of 2 at 500.
  void bf16AutocastStaysCloseToFloat32ForEveryVariant() {
    for (const auto& name : positionKindNames()) {
      for (bool filter : {false, true}) {
        torch::manual_seed(6);
        auto options = kernelTestModel(*parsePositionKind(name), filter);
        options.bf16Autocast = GptOptions::Bf16Autocast::Never;
        Gpt model(options);
        model->eval();
        model->setAttentionKernel(AttentionKernel::Blocked);
        torch::manual_seed(7);
        const auto tokens = torch::randint(13, {2, 32}, torch::kLong);
        const auto exact = model->forward(tokens);
        // The same seed again: the same weights and buffers (FoPE's coefficients are drawn).
        torch::manual_seed(6);
        auto mixedOptions = options;
        mixedOptions.bf16Autocast = GptOptions::Bf16Autocast::Always;  // as OnCuda on the GPU
        Gpt autocast(mixedOptions);
        autocast->eval();
        autocast->setAttentionKernel(AttentionKernel::Fused);
        const auto approx = autocast->forward(tokens);
        QCOMPARE(approx.scalar_type(), torch::kFloat);  // logits come back in float32
        const double range = maxAbs(exact);
        const QString what = QString::fromStdString(name) + (filter ? " + filter" : "");
        QVERIFY2(maxAbs(approx - exact) < 0.03 * range,
                 qPrintable(what + ": " + QString::number(maxAbs(approx - exact) / range)));
        QVERIFY2(maxAbs(approx - exact) > 0, qPrintable(what + ": autocast did not run"));
      }
    }
  }

  // QK norm as FoPE's official (OLMo) code has it: the projection's queries and keys at unit RMS
  // before the position encoding, computed here from the raw projection in float64 in its
  // (B, T, d) layout: rms divides each token's whole d-vector (every head together) by its RMS,
  // rms-per-head each head's D-slice by its own. Position none, so what the observer sees is the
  // normed q and k themselves.
  void qkNormGivesEveryQueryAndKeyUnitRmsBeforeThePositionEncoding() {
    torch::NoGradGuard noGrad;
    const int64_t d = 32, heads = 4, hd = d / heads;
    for (auto norm : {QkNorm::Rms, QkNorm::RmsPerHead}) {
      torch::manual_seed(11);
      CausalSelfAttention attention(d, heads, 0.0, 0.0, at::detail::createCPUGenerator(1),
                                    PositionEncoding(positionOptions(PositionKind::None, d, heads)),
                                    nullptr);
      attention->setQkNorm(norm);
      torch::Tensor seenQ, seenK;
      attention->setQkObserver([&](const torch::Tensor& q, const torch::Tensor& k) {
        seenQ = q;
        seenK = k;
      });
      const auto x = 3.0 * torch::randn({2, 8, d});
      attention->forward(x);
      const auto raw = torch::matmul(
          x.to(torch::kDouble), attention->named_parameters()["qkv.weight"].to(torch::kDouble).t());
      const QString what = norm == QkNorm::Rms ? "rms" : "rms-per-head";
      for (int part = 0; part < 2; ++part) {
        auto expected = raw.slice(/*dim=*/2, part * d, (part + 1) * d);  // (B, T, d)
        if (norm == QkNorm::Rms) {
          expected = expected / (expected.norm(2, /*dim=*/{2}, /*keepdim=*/true) / std::sqrt(d));
        } else {
          auto byHead = expected.reshape({2, 8, heads, hd});
          byHead = byHead / (byHead.norm(2, /*dim=*/{3}, /*keepdim=*/true) / std::sqrt(hd));
          expected = byHead.reshape({2, 8, d});
        }
        // The observer's (B, H, T, D) back to (B, T, d).
        const auto seen = (part == 0 ? seenQ : seenK).permute({0, 2, 1, 3}).reshape({2, 8, d});
        QVERIFY2(maxAbs(seen.to(torch::kDouble) - expected) < 1e-5, qPrintable(what));
        // Unit RMS over what the definition normalises, and (rms) not per head.
        const auto headMeanSquare = seen.reshape({2, 8, heads, hd}).pow(2).mean(/*dim=*/{3});
        if (norm == QkNorm::RmsPerHead) {
          QVERIFY2(maxAbs(headMeanSquare - 1) < 1e-5, qPrintable(what));
        } else {
          QVERIFY2(maxAbs(headMeanSquare.mean(/*dim=*/{2}) - 1) < 1e-5, qPrintable(what));
          QVERIFY2(maxAbs(headMeanSquare - 1) > 0.05, qPrintable(what + ": normed per head"));
        }
      }
    }
  }

  // RoPE rotates after the norm: a rotation keeps every pair's length, so with rms-per-head the
  // rotated queries and keys still have unit RMS per head, and their scores stay bounded by D.
  void qkNormComesBeforeTheRotation() {
    torch::NoGradGuard noGrad;
    torch::manual_seed(12);
    CausalSelfAttention attention(32, 4, 0.0, 0.0, at::detail::createCPUGenerator(1),
                                  PositionEncoding(positionOptions(PositionKind::Rope, 32, 4)),
                                  nullptr);
    attention->setQkNorm(QkNorm::RmsPerHead);
    torch::Tensor seenQ;
    attention->setQkObserver([&](const torch::Tensor& q, const torch::Tensor&) { seenQ = q; });
    attention->forward(5.0 * torch::randn({1, 16, 32}));
    QVERIFY(maxAbs(seenQ.pow(2).mean(/*dim=*/{3}) - 1) < 1e-5);
  }

  // qk_norm off is the attention as it was: a model with the default options (no QK norm ever
  // set) and one with QkNorm::Off give the same logits bit for bit, for every encoding; rms and
  // rms-per-head change them (the option reaches every layer through GptOptions).
  void qkNormOffLeavesTheModelBitIdentical() {
    torch::NoGradGuard noGrad;
    for (const auto& name : positionKindNames()) {
      const auto kind = *parsePositionKind(name);
      torch::manual_seed(13);
      const auto tokens = torch::randint(13, {2, 32}, torch::kLong);
      torch::manual_seed(14);
      Gpt plain(kernelTestModel(kind, false));
      const auto before = plain->forward(tokens);
      for (auto norm : {QkNorm::Off, QkNorm::Rms, QkNorm::RmsPerHead}) {
        auto options = kernelTestModel(kind, false);
        options.qkNorm = norm;
        torch::manual_seed(14);
        Gpt model(options);
        const auto after = model->forward(tokens);
        const QString what = QString::fromStdString(name);
        if (norm == QkNorm::Off)
          QVERIFY2(torch::equal(after, before), qPrintable(what));
        else
          QVERIFY2(maxAbs(after - before) > 1e-4, qPrintable(what + ": QK norm did nothing"));
      }
    }
  }

  void qkNormNamesParseAndUnknownOnesAreRefused() {
    for (const auto& name : qkNormNames()) QVERIFY(parseQkNorm(name).has_value());
    QCOMPARE(qkNormNames(), (std::vector<std::string>{"off", "rms", "rms-per-head"}));
    QVERIFY(!parseQkNorm("layernorm").has_value());
  }

  // A 2 x 2 example by hand: one head of size D = 2, q = k = v = x, no position encoding. Row 0
  // sees itself only; row 1 weighs x0 and x1 by softmax(s (x1.x0), s (x1.x1)) with s = 1 / sqrt 2,
  // or, double-scaled as the FourierQK author's earlier code, s = 1 / (2 sqrt 2).
  void doubleScalingDividesTheScoresByDThenBySqrtD() {
    torch::NoGradGuard noGrad;
    fl::nn::PositionOptions none;
    none.kind = fl::nn::PositionKind::None;
    none.dModel = 2;
    none.heads = 1;
    const auto x = torch::tensor({{{1.0f, 2.0f}, {3.0f, -1.0f}}});
    for (auto scaling : {fl::nn::ScoreScaling::Sqrt, fl::nn::ScoreScaling::Double})
      for (auto kernel : {fl::nn::AttentionKernel::Plain, fl::nn::AttentionKernel::Blocked}) {
        fl::nn::CausalSelfAttention attention(2, 1, 0.0, 0.0, at::detail::createCPUGenerator(1),
                                              fl::nn::PositionEncoding(none), nullptr);
        attention->named_parameters()["qkv.weight"].copy_(
            torch::cat({torch::eye(2), torch::eye(2), torch::eye(2)}, 0));
        attention->named_parameters()["out.weight"].copy_(torch::eye(2));
        attention->setKernel(kernel);
        attention->setScoreScaling(scaling);
        const double s = scaling == fl::nn::ScoreScaling::Double ? 1.0 / (2.0 * std::sqrt(2.0))
                                                                 : 1.0 / std::sqrt(2.0);
        QCOMPARE(fl::nn::scoreScale(scaling, 2), s);
        const double s10 = s * (3 * 1 + -1 * 2), s11 = s * (9 + 1);
        const double w1 = 1.0 / (1.0 + std::exp(s10 - s11)), w0 = 1.0 - w1;
        const auto y = attention->forward(x);
        QVERIFY(std::abs(y[0][0][0].item<double>() - 1.0) < 1e-6);
        QVERIFY(std::abs(y[0][0][1].item<double>() - 2.0) < 1e-6);
        QVERIFY(std::abs(y[0][1][0].item<double>() - (w0 * 1 + w1 * 3)) < 1e-5);
        QVERIFY(std::abs(y[0][1][1].item<double>() - (w0 * 2 + w1 * -1)) < 1e-5);
      }
  }
};

QTEST_APPLESS_MAIN(TestTransformer)
#include "test_transformer.moc"
