// Tests core/optim/flat_adam.h against torch::optim::Adam on the same model and gradients.
#include <QtTest>

#include <torch/torch.h>

#include "core/optim/flat_adam.h"

namespace {

torch::nn::Sequential makeModel() {
  torch::manual_seed(3);
  return torch::nn::Sequential(torch::nn::Linear(3, 8), torch::nn::Tanh(), torch::nn::Linear(8, 2));
}

}  // namespace

class TestFlatAdam : public QObject {
  Q_OBJECT

 private slots:
  void matchesTorchAdamOverManySteps() {
    auto reference = makeModel();
    auto flat = makeModel();
    torch::optim::Adam adam(reference->parameters(), torch::optim::AdamOptions(1e-2));
    fl::optim::FlatAdam flatAdam(flat->parameters(), fl::optim::FlatAdamOptions().lr(1e-2));
    torch::manual_seed(4);
    for (int step = 0; step < 100; ++step) {
      auto x = torch::randn({16, 3});
      auto y = torch::randn({16, 2});
      adam.zero_grad();
      torch::mse_loss(reference->forward(x), y).backward();
      adam.step();
      flatAdam.zeroGrad();
      torch::mse_loss(flat->forward(x), y).backward();
      flatAdam.step();
    }
    auto a = reference->parameters();
    auto b = flat->parameters();
    QCOMPARE(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
      QVERIFY2(torch::allclose(a[i], b[i], 1e-5, 1e-6),
               qPrintable(QString("parameter %1 differs by %2")
                              .arg(i)
                              .arg((a[i] - b[i]).abs().max().item<double>())));
    QCOMPARE(flatAdam.stepCount(), int64_t(100));
  }

  void withWeightDecayMatchesTorchAdamWOnTheMaskedParameters() {
    // Decay on the weight matrices only (the mask), as AdamW with two parameter groups.
    auto reference = makeModel();
    auto flat = makeModel();
    std::vector<torch::Tensor> decayed, plain;
    std::vector<bool> mask;
    for (auto& p : reference->parameters()) (p.dim() >= 2 ? decayed : plain).push_back(p);
    for (auto& p : flat->parameters()) mask.push_back(p.dim() >= 2);
    std::vector<torch::optim::OptimizerParamGroup> groups{
        torch::optim::OptimizerParamGroup(
            decayed, std::make_unique<torch::optim::AdamWOptions>(
                         torch::optim::AdamWOptions(1e-2).betas({0.9, 0.95}).weight_decay(0.1))),
        torch::optim::OptimizerParamGroup(
            plain, std::make_unique<torch::optim::AdamWOptions>(
                       torch::optim::AdamWOptions(1e-2).betas({0.9, 0.95}).weight_decay(0.0)))};
    torch::optim::AdamW adamw(groups, torch::optim::AdamWOptions(1e-2));
    fl::optim::FlatAdam flatAdam(
        flat->parameters(),
        fl::optim::FlatAdamOptions().lr(1e-2).beta1(0.9).beta2(0.95).weightDecay(0.1), mask);
    torch::manual_seed(5);
    for (int step = 0; step < 60; ++step) {
      auto x = torch::randn({16, 3});
      auto y = torch::randn({16, 2});
      adamw.zero_grad();
      torch::mse_loss(reference->forward(x), y).backward();
      adamw.step();
      flatAdam.zeroGrad();
      torch::mse_loss(flat->forward(x), y).backward();
      flatAdam.step();
    }
    auto a = reference->parameters();
    auto b = flat->parameters();
    for (size_t i = 0; i < a.size(); ++i)
      QVERIFY2(torch::allclose(a[i], b[i], 1e-5, 1e-6),
               qPrintable(QString("parameter %1 differs by %2")
                              .arg(i)
                              .arg((a[i] - b[i]).abs().max().item<double>())));
  }

  void clipGradNormMatchesTorchClipGradNorm() {
    auto reference = makeModel();
    auto flat = makeModel();
    fl::optim::FlatAdam flatAdam(flat->parameters(), fl::optim::FlatAdamOptions());
    torch::manual_seed(6);
    auto x = torch::randn({16, 3}) * 10;
    reference->forward(x).pow(2).sum().backward();
    flat->forward(x).pow(2).sum().backward();
    const double expected = torch::nn::utils::clip_grad_norm_(reference->parameters(), 0.5);
    const double norm = flatAdam.clipGradNorm(0.5).item<double>();
    QVERIFY(std::abs(norm - expected) <= 1e-4 * expected);
    QVERIFY(norm > 0.5);  // it did clip
    auto a = reference->parameters();
    auto b = flat->parameters();
    for (size_t i = 0; i < a.size(); ++i)
      QVERIFY(torch::allclose(a[i].grad(), b[i].grad(), 1e-5, 1e-7));
  }

  void aDecayMaskOfTheWrongSizeIsRejected() {
    auto model = makeModel();
    QVERIFY_THROWS_EXCEPTION(
        c10::Error, fl::optim::FlatAdam(model->parameters(),
                                        fl::optim::FlatAdamOptions().weightDecay(0.1), {true}));
  }

  void gradientsLandInTheFlatBufferAndZeroGradClearsThem() {
    auto model = makeModel();
    fl::optim::FlatAdam adam(model->parameters(), fl::optim::FlatAdamOptions());
    model->forward(torch::randn({4, 3})).sum().backward();
    double norm = 0;
    for (auto& p : model->parameters()) norm += p.grad().abs().sum().item<double>();
    QVERIFY(norm > 0);
    adam.zeroGrad();
    for (auto& p : model->parameters()) QCOMPARE(p.grad().abs().sum().item<double>(), 0.0);
  }

  void mixedDevicesOrDtypesAreRejected() {
    auto a = torch::zeros({2}, torch::kFloat).requires_grad_();
    auto b = torch::zeros({2}, torch::kDouble).requires_grad_();
    QVERIFY_THROWS_EXCEPTION(c10::Error, fl::optim::FlatAdam({a, b}, fl::optim::FlatAdamOptions()));
  }
};

QTEST_APPLESS_MAIN(TestFlatAdam)
#include "test_flat_adam.moc"
