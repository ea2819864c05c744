// Tests core/nn/linear_head.h: the piecewise-constant density of the softmax.
#include <QtTest>

#include <torch/torch.h>

#include "core/nn/linear_head.h"

class TestLinearHead : public QObject {
  Q_OBJECT

 private slots:
  void densityIsSoftmaxSpreadOverEachBin() {
    const int64_t bins = 10;
    auto head = fl::nn::LinearHead(4, bins);
    auto h = torch::randn({2, 4});
    auto q = torch::softmax(head->forward(h).logits, 1);
    // Points inside bin i (width 0.2) carry q_i / 0.2.
    auto z = fl::nn::binCenters(bins);
    auto p = head->density(h, z);
    QVERIFY(torch::allclose(p, q * (bins / 2.0), 1e-5, 1e-6));
    // The density integrates to 1 over [-1, 1].
    auto grid = torch::linspace(-1.0, 1.0, 100001, torch::kDouble).to(torch::kFloat);
    auto integral = torch::trapezoid(head->density(h, grid), grid, 1);
    QVERIFY(torch::allclose(integral, torch::ones({2}), 1e-3, 1e-3));
  }
};

QTEST_APPLESS_MAIN(TestLinearHead)
#include "test_linear_head.moc"
