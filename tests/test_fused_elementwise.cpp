// The fused CPU GELU and hashed dropout (core/nn/transformer/fused_elementwise.h) against
// LibTorch's own ops: values and gradients, mask statistics, determinism, bad input.
#include <QtTest>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "core/nn/transformer/fused_elementwise.h"

namespace {

double maxAbs(const torch::Tensor& t) { return t.abs().max().item<double>(); }

}  // namespace

class TestFusedElementwise : public QObject {
  Q_OBJECT

 private slots:
  void geluAndItsGradientMatchLibTorchs() {
    torch::manual_seed(11);
    // Lengths around the 16-lane vectors and a parallel chunk; wide and extreme values.
    for (int64_t n : {1, 15, 16, 17, 1000, 65536 + 37}) {
      auto x = torch::randn({n}) * 4;
      if (n > 8) {
        x[0] = 0;
        x[1] = 30;
        x[2] = -30;
        x[3] = 1e-8;
        x[4] = -5.5;
      }
      auto a = x.clone().requires_grad_(true), b = x.clone().requires_grad_(true);
      auto ya = fl::nn::fusedGelu(a), yb = torch::gelu(b);
      QVERIFY(torch::equal(ya, yb));  // the forward is LibTorch's
      const auto w = torch::randn({n});
      (ya * w).sum().backward();
      (yb * w).sum().backward();
      const double err = maxAbs(a.grad() - b.grad()) / std::max(1.0, maxAbs(b.grad()));
      QVERIFY2(err < 2e-6, (std::to_string(n) + ": " + std::to_string(err)).c_str());
    }
  }

  void geluGradientOfAStridedInputIsRight() {
    auto base = torch::randn({64, 48}).requires_grad_(true);
    auto x = base.t();  // not contiguous
    fl::nn::fusedGelu(x).sum().backward();
    auto ref = base.detach().clone().requires_grad_(true);
    torch::gelu(ref.t()).sum().backward();
    QVERIFY(maxAbs(base.grad() - ref.grad()) < 2e-6);
  }

  void dropoutKeepsOneMinusPScaledAndZeroesTheRest() {
    const int64_t n = 1 << 20;
    const auto x = torch::rand({n}) + 0.5;  // never 0, so a zero means dropped
    for (double p : {0.1, 0.5, 0.9}) {
      const auto y = fl::nn::hashedDropout(x, p, 1234);
      const auto kept = y != 0;
      const double keptShare = kept.to(torch::kDouble).mean().item<double>();
      const double sigma = std::sqrt(p * (1 - p) / n);
      QVERIFY2(std::abs(keptShare - (1 - p)) < 5 * sigma, std::to_string(keptShare).c_str());
      const auto scaled = x.masked_select(kept) * static_cast<float>(1 / (1 - p));
      QVERIFY(maxAbs(y.masked_select(kept) - scaled) <= 1e-6);
      // Neighbouring elements are independent: P(both kept) = (1 - p)^2.
      const double pairs =
          (kept.slice(0, 1) & kept.slice(0, 0, n - 1)).to(torch::kDouble).mean().item<double>();
      QVERIFY(std::abs(pairs - (1 - p) * (1 - p)) < 6 * sigma);
    }
  }

  void dropoutsGradientIsItsMaskAndItsDrawsTheSeeds() {
    const auto x = torch::rand({4097}) + 0.5;
    auto a = x.clone().requires_grad_(true);
    const auto y = fl::nn::hashedDropout(a, 0.3, 99);
    const auto w = torch::randn({4097});
    (y * w).sum().backward();
    QVERIFY(maxAbs(a.grad() - w * (y.detach() / x)) < 1e-5);  // d y_i / d x_i = y_i / x_i
    QVERIFY(torch::equal(fl::nn::hashedDropout(x, 0.3, 99), y.detach()));
    QVERIFY(!torch::equal(fl::nn::hashedDropout(x, 0.3, 100), y.detach()));
    QVERIFY(torch::equal(fl::nn::hashedDropout(x, 0.0, 99), x));
  }

  void dropoutMasksDoNotDependOnTheThreadCount() {
    const auto x = torch::rand({300001}) + 0.5;
    at::set_num_threads(1);
    const auto one = fl::nn::hashedDropout(x, 0.2, 7);
    at::set_num_threads(2);
    const auto two = fl::nn::hashedDropout(x, 0.2, 7);
    QVERIFY(torch::equal(one, two));
  }

  void aBadProbabilityIsRejectedWithItsValue() {
    const auto x = torch::ones({8});
    for (double p : {1.0, -0.1}) {
      try {
        fl::nn::hashedDropout(x, p, 1);
        QFAIL("accepted");
      } catch (const c10::Error& e) {
        QVERIFY2(std::string(e.what()).find("is not in [0, 1)") != std::string::npos, e.what());
      }
    }
    try {
      fl::nn::hashedDropout(x.to(torch::kDouble), 0.1, 1);
      QFAIL("accepted a double tensor");
    } catch (const c10::Error& e) {
      QVERIFY(std::string(e.what()).find("float CPU") != std::string::npos);
    }
  }
};

QTEST_GUILESS_MAIN(TestFusedElementwise)
#include "test_fused_elementwise.moc"
