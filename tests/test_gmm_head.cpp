// Tests core/nn/gmm_head.h: the mixture density against a direct computation, initial widths.
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

  void forwardIsANormalisedLogDistribution() {
    auto head = fl::nn::GmmHead(fl::nn::GmmHeadOptions(3, 50, 5));
    auto out = head->forward(torch::randn({4, 3}));
    QVERIFY(!out.penalty.defined());
    auto q = torch::exp(out.logits) - 1e-5;
    QVERIFY(torch::allclose(q.sum(1), torch::ones({4}), 1e-5, 1e-5));
  }
};

QTEST_APPLESS_MAIN(TestGmmHead)
#include "test_gmm_head.moc"
