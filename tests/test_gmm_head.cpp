// Tests core/nn/gmm_head.h: the mixture density against a direct computation, initial widths,
// and the logits against the official formula.
#include <QtTest>

#include <torch/torch.h>

#include "core/nn/gmm_head.h"

class TestGmmHead : public QObject {
  Q_OBJECT

 private slots:
  void densityIsTheEqualWeightMixture() {
    torch::manual_seed(1);
    auto head = fl::nn::GmmHead(fl::nn::GmmHeadOptions(3, 40, 4));
    head->to(torch::kDouble);
    auto h = torch::randn({3, 3}, torch::kDouble);
    auto z = torch::linspace(-1.0, 1.0, 21, torch::kDouble);
    auto p = head->density(h, z);
    auto mu = head->means(h);
    auto sigma = head->stddevs();
    for (int64_t b = 0; b < 3; ++b)
      for (int64_t i = 0; i < 21; ++i) {
        double expected = 0;
        for (int64_t g = 0; g < 4; ++g) {
          const double s = sigma[g].item<double>();
          const double d = (z[i].item<double>() - mu[b][g].item<double>()) / s;
          expected += std::exp(-0.5 * d * d) / (s * std::sqrt(2 * M_PI)) / 4.0;
        }
        QVERIFY(std::abs(p[b][i].item<double>() - expected) < 1e-10);
      }
  }

  void stddevsStartAtTheBinWidth() {
    auto head = fl::nn::GmmHead(fl::nn::GmmHeadOptions(3, 50, 5));
    QVERIFY(torch::allclose(head->stddevs(), torch::full({5}, 2.0 / 50), 1e-6, 1e-7));
  }

  // The logits are the official head's (gmm_head.py), computed here independently in float64 on
  // random heads and inputs: means tanh(W h + b), sigma = softplus(raw), the equal-weight
  // mixture's normal density at the bin centres -1 + (2j + 1)/m, and log(density + 1e-5) with
  // no normalisation over the bins.
  void logitsAreTheOfficialFormulaOnRandomInputs() {
    for (int trial = 0; trial < 20; ++trial) {
      torch::manual_seed(100 + trial);
      const int64_t features = 1 + trial % 5, bins = 10 + 7 * trial, gaussians = 1 + trial % 4;
      auto head = fl::nn::GmmHead(fl::nn::GmmHeadOptions(features, bins, gaussians));
      head->to(torch::kDouble);
      {
        torch::NoGradGuard noGrad;  // widths away from their start, so sigma is exercised
        head->named_parameters()["raw_std"].uniform_(-4.0, 1.0);
      }
      auto h = torch::randn({6, features}, torch::kDouble) * 2.0;
      const auto logits = head->forward(h).logits;
      auto params = head->named_parameters();
      const auto w = params["linear.weight"], b = params["linear.bias"], raw = params["raw_std"];
      double worst = 0;
      for (int64_t r = 0; r < 6; ++r)
        for (int64_t j = 0; j < bins; ++j) {
          const double x = -1.0 + (2.0 * double(j) + 1.0) / double(bins);
          double mixture = 0;
          for (int64_t g = 0; g < gaussians; ++g) {
            double a = b[g].item<double>();
            for (int64_t f = 0; f < features; ++f)
              a += w[g][f].item<double>() * h[r][f].item<double>();
            const double mu = std::tanh(a);
            const double sigma = std::log1p(std::exp(raw[g].item<double>()));
            const double d = x - mu;
            mixture += std::exp(-d * d / (2 * sigma * sigma)) / (sigma * std::sqrt(2 * M_PI));
          }
          mixture /= double(gaussians);
          const double expected = std::log(mixture + 1e-5);
          worst = std::max(worst, std::abs(logits[r][j].item<double>() - expected));
        }
      QVERIFY2(worst < 1e-9, qPrintable(QString("trial %1: %2").arg(trial).arg(worst)));
    }
  }

  // Not normalised over the bins: one Gaussian one bin wide sums to about m/2 there.
  void theLogitsAreNotNormalisedOverTheBins() {
    auto head = fl::nn::GmmHead(fl::nn::GmmHeadOptions(3, 50, 1));
    auto out = head->forward(torch::zeros({1, 3}));
    QVERIFY(!out.penalty.defined());
    const double mass = (torch::exp(out.logits) - 1e-5).sum().item<double>();
    QVERIFY2(mass > 20 && mass < 30, qPrintable(QString::number(mass)));
  }
};

QTEST_APPLESS_MAIN(TestGmmHead)
#include "test_gmm_head.moc"
