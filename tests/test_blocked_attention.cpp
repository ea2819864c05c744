// Tests core/nn/transformer/blocked_attention.h: the blocked kernel against the plain
// softmax(q k^T * scale + mask) v, outputs and gradients, for several lengths and block sizes,
// with and without a bias (ALiBi) and dropout; its dropout mask; and whole models with every
// position encoding and Q/K filter, blocked against plain: logits, every parameter's gradient
// and the causality probe (how far earlier log-probabilities move when later tokens change).
#include <QtTest>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <fstream>
#include <limits>
#include <vector>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "core/engine/blas_gemm.h"
#include "core/engine/parallel_team.h"
#include "core/nn/qk_filters/causal_kernel_filter.h"
#include "core/nn/qk_filters/spectral_filter.h"
#include "core/nn/transformer/alibi.h"
#include "core/nn/transformer/blocked_attention.h"
#include "core/nn/transformer/gpt.h"

using namespace fl::nn;

namespace {

double maxAbs(const torch::Tensor& t) { return t.abs().max().item<double>(); }

// |a - b| relative to b's largest entry.
double relativeError(const torch::Tensor& a, const torch::Tensor& b) {
  return maxAbs(a - b) / std::max(maxAbs(b), 1e-30);
}

// The same for values of order one (random inputs), so an exact 0 (the query gradient with
// one key: its weight is 1 whatever the scores) is compared with float round-off, not 0.
double errorAtUnitScale(const torch::Tensor& a, const torch::Tensor& b) {
  return maxAbs(a.to(torch::kDouble) - b) / std::max(maxAbs(b), 1.0);
}

// The plain computation, in double: (B, H, T, D).
torch::Tensor reference(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                        double scale, const torch::Tensor& bias, const torch::Tensor& keep,
                        double p) {
  const int64_t t = q.size(2);
  auto future = torch::ones({t, t}, torch::kBool).triu(1);
  auto scores = torch::matmul(q, k.transpose(-2, -1)) * scale;
  if (bias.defined()) scores = scores + bias.to(torch::kDouble);
  auto weights =
      torch::softmax(scores.masked_fill(future, -std::numeric_limits<double>::infinity()), -1);
  if (keep.defined()) weights = weights * keep.to(torch::kDouble) / (1.0 - p);
  return torch::matmul(weights, v);
}

struct Grads {
  torch::Tensor y, dq, dk, dv;
};

// Output and input gradients of sum(y * probe) for a fixed random probe.
template <typename F>
Grads outputAndGradients(F&& attention, const torch::Tensor& q0, const torch::Tensor& k0,
                         const torch::Tensor& v0, const torch::Tensor& probe) {
  auto q = q0.clone().requires_grad_(true);
  auto k = k0.clone().requires_grad_(true);
  auto v = v0.clone().requires_grad_(true);
  auto y = attention(q, k, v);
  (y * probe.to(y.dtype())).sum().backward();
  return {y.detach(), q.grad(), k.grad(), v.grad()};
}

GptOptions tinyModel(PositionKind position, const std::string& filter) {
  GptOptions o;
  o.vocabSize = 13;
  o.dModel = 32;
  o.heads = 4;
  o.layers = 2;
  o.norm = NormKind::Layer;
  o.position.kind = position;
  o.position.trainLength = 16;
  o.position.maxLength = 40;
  o.position.clipFloor = position == PositionKind::Fope;
  o.qkFilter = [filter](int64_t) -> std::shared_ptr<QkFilterImpl> {
    if (filter == "none") return nullptr;
    if (filter == "random") return std::make_shared<RandomSpectralFilterImpl>(4, 16);
    if (filter == "fourier")
      return std::make_shared<GaussianBandFilterImpl>(4, 16, 1, 2.0, std::vector<double>{3.0});
    if (filter == "multi")
      return std::make_shared<GaussianBandFilterImpl>(4, 16, 3, 1.5,
                                                      std::vector<double>{1.0, 2.0, 4.0});
    return std::make_shared<CausalKernelFilterImpl>(*parseCausalKernel(filter), 6, 2.0);
  };
  return o;
}

// The largest change of log-probabilities before position t when tokens from t on change
// (the fourier-qk experiment's causality probe, on one model).
double causalityProbe(Gpt& model, const torch::Tensor& tokens, int64_t t) {
  torch::NoGradGuard noGrad;
  auto changed = tokens.clone();
  changed.narrow(1, t, tokens.size(1) - t).random_(13);
  auto before = torch::log_softmax(model->forward(tokens), -1).narrow(1, 0, t);
  auto after = torch::log_softmax(model->forward(changed), -1).narrow(1, 0, t);
  return maxAbs(after - before);
}

}  // namespace

class TestBlockedAttention : public QObject {
  Q_OBJECT

 private slots:
  // First, before any product has picked the BLAS in this process: the forked child picks it
  // under its own limit. OpenBLAS 0.3.21 retried the mmap of its work buffer forever when the
  // address space (ulimit -v) had no room left, so a big batch hung where no cancel reached.
  // Under a limit a product must end: computed, or an exception the run reports.
  void aProductUnderAnAddressSpaceLimitEnds() {
    const pid_t child = fork();
    QVERIFY(child >= 0);
    if (child == 0) {
      alarm(20);  // a hang ends the child with SIGALRM, which the parent reports
      const int n = 512;
      std::vector<float> a(n * n, 1.0f), b(n * n, 1.0f), c(n * n, 0.0f);
      long pages = 0;
      std::ifstream("/proc/self/statm") >> pages;
      const rlim_t used = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE));
      const rlimit limit{used + (rlim_t(64) << 20), used + (rlim_t(64) << 20)};
      if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(5);
      try {
        fl::gemmRowMajor(false, false, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
      } catch (...) {
        _exit(3);  // refused: fine, the run says out of memory
      }
      _exit(c[0] == float(n) ? 0 : 4);
    }
    int status = 0;
    QCOMPARE(waitpid(child, &status, 0), child);
    QVERIFY2(!(WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM),
             "the product hung under the address-space limit");
    QVERIFY2(WIFEXITED(status),
             qPrintable(QString("child ended by signal %1").arg(WTERMSIG(status))));
    QVERIFY2(WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 3,
             qPrintable(QString("child exit %1").arg(WEXITSTATUS(status))));
  }

  void matchesThePlainAttention_data() {
    QTest::addColumn<int>("length");
    QTest::addColumn<int>("rowBlock");
    QTest::addColumn<QString>("bias");
    QTest::addColumn<double>("dropout");
    QTest::newRow("one position") << 1 << 0 << "none" << 0.0;
    QTest::newRow("T 37, one block") << 37 << 0 << "none" << 0.0;
    QTest::newRow("T 37, blocks of 8 (last one short)") << 37 << 8 << "none" << 0.0;
    QTest::newRow("T 64, blocks of 1") << 64 << 1 << "none" << 0.0;
    QTest::newRow("T 50, ALiBi per head") << 50 << 16 << "alibi" << 0.0;
    QTest::newRow("T 50, one bias for all heads") << 50 << 7 << "shared" << 0.0;
    QTest::newRow("T 45, dropout 0.3") << 45 << 16 << "none" << 0.3;
    QTest::newRow("T 45, ALiBi and dropout 0.1") << 45 << 0 << "alibi" << 0.1;
  }

  void matchesThePlainAttention() {
    QFETCH(int, length);
    QFETCH(int, rowBlock);
    QFETCH(QString, bias);
    QFETCH(double, dropout);
    torch::manual_seed(3);
    const int64_t b = 2, h = 3, d = 8;
    auto q = torch::randn({b, h, length, d}), k = torch::randn({b, h, length, d});
    auto v = torch::randn({b, h, length, d}), probe = torch::randn({b, h, length, d});
    torch::Tensor biasTensor;
    if (bias == "alibi") biasTensor = alibiBias(alibiSlopes(h), length, torch::kFloat);
    if (bias == "shared") biasTensor = torch::randn({length, length});
    const double scale = 1.0 / std::sqrt(8.0);
    const AttentionDropout drop{dropout, 12345};
    auto keep = dropout > 0 ? attentionDropoutKeepMask(drop, b, h, length) : torch::Tensor();

    auto blocked = outputAndGradients(
        [&](auto& q_, auto& k_, auto& v_) {
          return blockedCausalAttention(q_, k_, v_, scale, biasTensor, drop, rowBlock);
        },
        q, k, v, probe);
    auto plain = outputAndGradients(
        [&](auto& q_, auto& k_, auto& v_) {
          return reference(q_, k_, v_, scale, biasTensor, keep, dropout);
        },
        q.to(torch::kDouble), k.to(torch::kDouble), v.to(torch::kDouble), probe);
    QVERIFY2(errorAtUnitScale(blocked.y, plain.y) < 1e-5,
             qPrintable(QString::number(errorAtUnitScale(blocked.y, plain.y))));
    QVERIFY2(errorAtUnitScale(blocked.dq, plain.dq) < 1e-5,
             qPrintable(QString::number(errorAtUnitScale(blocked.dq, plain.dq))));
    QVERIFY2(errorAtUnitScale(blocked.dk, plain.dk) < 1e-5,
             qPrintable(QString::number(errorAtUnitScale(blocked.dk, plain.dk))));
    QVERIFY2(errorAtUnitScale(blocked.dv, plain.dv) < 1e-5,
             qPrintable(QString::number(errorAtUnitScale(blocked.dv, plain.dv))));
  }

  void takesStridedInputsAsTheyCome() {
    // q, k, v as the model makes them: views into one (B, T, 3, H, D) projection.
    torch::manual_seed(4);
    auto qkv = torch::randn({2, 20, 3, 2, 8}).permute({2, 0, 3, 1, 4});
    auto y = blockedCausalAttention(qkv[0], qkv[1], qkv[2], 0.3, {});
    auto expected = reference(qkv[0].to(torch::kDouble), qkv[1].to(torch::kDouble),
                              qkv[2].to(torch::kDouble), 0.3, {}, {}, 0);
    QVERIFY(relativeError(y.to(torch::kDouble), expected) < 1e-5);
  }

  void theDropoutMaskKeepsTheRightShareAndDependsOnlyOnTheSeed() {
    const AttentionDropout drop{0.25, 99};
    auto a = attentionDropoutKeepMask(drop, 4, 2, 128);
    QVERIFY(maxAbs(a - attentionDropoutKeepMask(drop, 4, 2, 128)) == 0);
    QVERIFY(maxAbs(a - attentionDropoutKeepMask({0.25, 100}, 4, 2, 128)) == 1);
    // Nothing above the diagonal; below it, kept with probability 0.75.
    QCOMPARE(a.triu(1).sum().item<double>(), 0.0);
    const double cells = 8.0 * 128 * 129 / 2;
    const double share = a.sum().item<double>() / cells;
    QVERIFY2(std::abs(share - 0.75) < 4 * std::sqrt(0.75 * 0.25 / cells),
             qPrintable(QString::number(share)));
  }

  void runsOnTheThreadsItIsGivenWithTheSameResultOnAny() {
#ifndef _OPENMP
    QSKIP("built with FOURIERLAB_OPENMP=OFF: at::parallel_for in our code runs on one thread");
#endif
    // Built without OpenMP, at::parallel_for in our code ran every unit on one thread whatever
    // the thread count (parallel_team.h): the kernel's loops must get the threads asked for,
    // the count set here (3 is more than CI's cores: OpenMP's default team would not be it).
    struct RestoreThreads {
      int saved = at::get_num_threads();
      ~RestoreThreads() { at::set_num_threads(saved); }
    } restore;
    for (int threads : {1, 3, 2}) {
      at::set_num_threads(threads);
      QCOMPARE(fl::parallelForTeamSize(), threads);
    }
    // Each (batch, head) is computed whole by one thread: the bits do not depend on how many.
    torch::manual_seed(5);
    auto q = torch::randn({3, 4, 70, 8}), k = torch::randn({3, 4, 70, 8});
    auto v = torch::randn({3, 4, 70, 8}), probe = torch::randn({3, 4, 70, 8});
    auto bias = alibiBias(alibiSlopes(4), 70, torch::kFloat);
    auto attention = [&](const auto& q, const auto& k, const auto& v) {
      return blockedCausalAttention(q, k, v, 0.4, bias, {0.2, 17}, 16);
    };
    const auto two = outputAndGradients(attention, q, k, v, probe);
    at::set_num_threads(1);
    const auto one = outputAndGradients(attention, q, k, v, probe);
    QCOMPARE(maxAbs(two.y - one.y), 0.0);
    QCOMPARE(maxAbs(two.dq - one.dq), 0.0);
    QCOMPARE(maxAbs(two.dk - one.dk), 0.0);
    QCOMPARE(maxAbs(two.dv - one.dv), 0.0);
  }

  void rejectsWhatItCannotCompute() {
    auto x = torch::randn({1, 2, 4, 8});
    try {
      blockedCausalAttention(x, x, x.to(torch::kDouble), 1.0, {});
      QFAIL("expected an error");
    } catch (const c10::Error& e) {
      QVERIFY(QString(e.what()).contains("blocked attention runs on float CPU tensors"));
    }
    try {
      blockedCausalAttention(x, x, x, 1.0, torch::zeros({3, 4, 4}));
      QFAIL("expected an error");
    } catch (const c10::Error& e) {
      QVERIFY(QString(e.what()).contains("does not fit 2 heads and length 4"));
    }
  }

  void modelsMatchThePlainKernelForEveryPositionAndFilter_data() {
    QTest::addColumn<QString>("position");
    QTest::addColumn<QString>("filter");
    for (const auto& position : positionKindNames())
      for (const char* filter :
           {"none", "random", "fourier", "multi", "gaussian", "mexican_hat", "causal_morlet"})
        QTest::newRow((position + " / " + filter).c_str())
            << QString::fromStdString(position) << QString(filter);
  }

  void modelsMatchThePlainKernelForEveryPositionAndFilter() {
    QFETCH(QString, position);
    QFETCH(QString, filter);
    const auto kind = *parsePositionKind(position.toStdString());
    auto build = [&](AttentionKernel kernel) {
      torch::manual_seed(5);  // the same weights (and random filters) for both kernels
      Gpt model(tinyModel(kind, filter.toStdString()));
      model->setAttentionKernel(kernel);
      return model;
    };
    Gpt blocked = build(AttentionKernel::Blocked), plain = build(AttentionKernel::Plain);
    torch::manual_seed(6);
    auto tokens = torch::randint(13, {3, 40}, torch::kLong);
    auto targets = torch::randint(13, {3, 40}, torch::kLong);
    auto lossOf = [&](Gpt& model) {
      auto logits = model->forward(tokens);
      auto loss = torch::nn::functional::cross_entropy(logits.view({-1, 13}), targets.view({-1}));
      loss.backward();
      return logits.detach();
    };
    auto logitsBlocked = lossOf(blocked), logitsPlain = lossOf(plain);
    QVERIFY2(maxAbs(logitsBlocked - logitsPlain) < 1e-4,
             qPrintable(QString::number(maxAbs(logitsBlocked - logitsPlain))));
    const auto pb = blocked->named_parameters(), pp = plain->named_parameters();
    for (const auto& item : pb) {
      const auto& gradBlocked = item.value().grad();
      const auto& gradPlain = pp[item.key()].grad();
      if (!gradPlain.defined()) {
        QVERIFY(!gradBlocked.defined());
        continue;
      }
      QVERIFY2(relativeError(gradBlocked, gradPlain) < 1e-3,
               qPrintable(QString::fromStdString(item.key()) + ": " +
                          QString::number(relativeError(gradBlocked, gradPlain))));
    }
    // The leak probe sees the same model: 0 for causal filters, the same leak for spectral ones.
    blocked->eval();
    plain->eval();
    for (int64_t t : {1, 17, 33}) {
      torch::manual_seed(7 + t);
      const double leakBlocked = causalityProbe(blocked, tokens, t);
      torch::manual_seed(7 + t);
      const double leakPlain = causalityProbe(plain, tokens, t);
      QVERIFY2(std::abs(leakBlocked - leakPlain) < 1e-4 + 1e-3 * leakPlain,
               qPrintable(QString("t %1: %2 vs %3").arg(t).arg(leakBlocked).arg(leakPlain)));
      const bool causal = filter == "none" || parseCausalKernel(filter.toStdString()).has_value();
      if (causal) QVERIFY(leakBlocked < 1e-5);
    }
  }
};

QTEST_APPLESS_MAIN(TestBlockedAttention)
#include "test_blocked_attention.moc"
