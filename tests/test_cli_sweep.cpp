// Tests `fourierlab-cli sweep` as a user runs it: a study trained, listed, tabled,
// plotted and exported; bad studies refused with exit 2 and nothing stored; a study killed with
// kill -9 halfway finished by `sweep resume` without training a finished run again; two resumes
// of one study at once training no run twice.
#include <QtTest>

#include <QImage>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>

#include <sqlite3.h>
#include <nlohmann/json.hpp>

#include "tests/cli_process.h"
#include "tests/sqlite_probe.h"
#include "tests/text_corpus.h"

using fl::testing::cliPath;
using fl::testing::runCli;

namespace fs = std::filesystem;

namespace {

int64_t queryInt(const QString& db, const std::string& sql) {
  return fl::testing::queryInt(db.toStdString(), sql);
}

std::string readAll(const QString& path) {
  std::ifstream in(path.toStdString(), std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

QStringList tinyStudy(const QString& db, int epochs, const QString& seeds = "1,2") {
  return {"sweep",
          "run",
          "fourier-head",
          "--db",
          db,
          "--grid",
          "head=linear,fourier",
          "--seeds",
          seeds,
          "--set",
          "samples=200",
          "--set",
          "epochs=" + QString::number(epochs),
          "--set",
          "eval_every=1",
          "--device",
          "cpu"};
}

}  // namespace

class TestCliSweep : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString path(const QString& name) const { return m_dir.path() + "/" + name; }

 private slots:
  // A study whose runs were deleted (`runs delete`) must not still count them as finished:
  // `sweep list` and `sweep show` count the runs the store still has.
  void aStudyCountsOnlyTheRunsStillStored() {
    const QString db = path("deleted.db");
    auto r = runCli(tinyStudy(db, 2));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    auto del = runCli({"runs", "delete", "1", "--db", db});
    QVERIFY2(del.exitCode == 0, qPrintable(del.err));
    // Said, with how to train it again (the study read "incomplete" with nothing said).
    QVERIFY2(del.err.contains("note: run 1 was a run of study 1, which now misses it (`sweep "
                              "resume 1` trains it again)"),
             qPrintable(del.err));
    auto list = runCli({"sweep", "list", "--db", db, "--json"});
    QCOMPARE(list.exitCode, 0);
    const auto studies = nlohmann::json::parse(list.out.toStdString());
    QVERIFY2(studies[0]["counts"]["finished"].get<int>() == 3, list.out.toUtf8().constData());
    QVERIFY2(studies[0]["counts"]["missing"].get<int>() == 1, list.out.toUtf8().constData());
    QVERIFY2(studies[0]["status"].get<std::string>() != "finished", list.out.toUtf8().constData());
    auto show = runCli({"sweep", "show", "1", "--db", db});
    QVERIFY2(
        show.out.contains("3 finished, 1 missing") || show.err.contains("3 finished, 1 missing"),
        qPrintable(show.out + show.err));
  }

  void aStudyIsTrainedListedTabledPlottedAndExported() {
    const QString db = path("study.db");
    // A dry run creates no store; on one that has the runs, it names the ones it would reuse.
    auto dry = runCli(tinyStudy(db, 2) << "--dry-run");
    QVERIFY2(dry.exitCode == 0, qPrintable(dry.err));
    QVERIFY(!dry.out.contains("finished already"));
    QVERIFY(!fs::exists(db.toStdString()));
    auto r = runCli(tinyStudy(db, 2));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    dry = runCli(tinyStudy(db, 2, "1,2,3") << "--dry-run");
    QVERIFY2(dry.exitCode == 0, qPrintable(dry.err));
    QCOMPARE(dry.out.count("  finished already: run #"), 4);
    QVERIFY2(dry.out.contains("4 of them finished already, taken as they are; 2 to train"),
             qPrintable(dry.out));
    QVERIFY(!dry.out.contains("has this exact spec"));  // another study: three seeds
    dry = runCli(tinyStudy(db, 2) << "--dry-run");
    QVERIFY2(dry.out.contains("study 1 has this exact spec: running it continues that study"),
             qPrintable(dry.out));
    // Finished, it has nothing to send to a cluster: it had been told to send its runs.
    auto status = runCli({"sweep", "status", "1", "--db", db});
    QVERIFY2(status.exitCode == 0 && status.out.contains("no Slurm job; every run is finished"),
             qPrintable(status.out + status.err));
    // Its figure never draws over the store: through a link named .svg, it had replaced the
    // store with a picture of it, exit 0.
    QVERIFY(QFile::link(db, path("study-link.svg")));
    auto overStore = runCli({"sweep", "plot", "1", "--db", db, "--x", "head", "--metric", "test/kl",
                             "--out", path("study-link.svg")});
    QCOMPARE(overStore.exitCode, 2);
    QVERIFY2(overStore.err.contains(path("study-link.svg") + " is the run store itself: the "
                                                             "figure would overwrite it"),
             qPrintable(overStore.err));
    QCOMPARE(runCli({"sweep", "list", "--db", db}).exitCode, 0);
    QVERIFY2(r.err.contains("budget: 2 parallel runs x 1 thread") ||
                 r.err.contains("budget: 1 run x 1 thread"),
             qPrintable(r.err));
    QVERIFY2(r.err.contains("OpenMP wait policy: PASSIVE"), qPrintable(r.err));
    QVERIFY2(r.err.contains("[4/4] run"), qPrintable(r.err));
    QVERIFY2(r.out.contains("| head = linear | head = fourier |") ||
                 r.out.contains("| head | test/kl |"),
             qPrintable(r.out));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs WHERE status = 'finished'"), int64_t(4));
    // `runs list` names each run by its study and setting, the columns aligned after the names
    // (a name holds '·', two bytes that print as one character).
    const QStringList rows =
        runCli({"runs", "list", "--db", db}).out.split('\n', Qt::SkipEmptyParts);
    QCOMPARE(rows.size(), 5);
    QVERIFY2(rows[1].contains(" · head=") && rows[1].contains("seed="), qPrintable(rows[1]));
    const qsizetype statusColumn = rows[0].indexOf("status");
    for (const auto& row : rows.mid(1))
      QVERIFY2(row.mid(statusColumn).startsWith("finished"), qPrintable(rows.join('\n')));

    auto list = runCli({"sweep", "list", "--db", db, "--json"});
    QCOMPARE(list.exitCode, 0);
    const auto studies = nlohmann::json::parse(list.out.toStdString());
    QCOMPARE(studies.size(), size_t(1));
    QCOMPARE(studies[0]["runs"].get<int>(), 4);
    QCOMPARE(studies[0]["status"].get<std::string>(), std::string("finished"));

    auto table =
        runCli({"sweep", "table", "1", "--db", db, "--format", "json", "--metric", "test/kl"});
    QVERIFY2(table.exitCode == 0, qPrintable(table.err));
    const auto cells = nlohmann::json::parse(table.out.toStdString())["cells"];
    QCOMPARE(cells.size(), size_t(2));
    QCOMPARE(cells[0]["metrics"]["test/kl"]["n"].get<int>(), 2);
    // The mean is the mean of the two runs' final test/kl, as stored.
    const double a = cells[0]["metrics"]["test/kl"]["values"][0].get<double>();
    const double b = cells[0]["metrics"]["test/kl"]["values"][1].get<double>();
    QVERIFY(std::abs(cells[0]["metrics"]["test/kl"]["mean"].get<double>() - (a + b) / 2) < 1e-12);

    auto exported = runCli({"sweep", "export", "1", "--db", db});
    QCOMPARE(exported.exitCode, 0);
    const auto lines = exported.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 5);  // header + 4 runs
    QVERIFY2(lines[0].startsWith("study,cell,run_id,status,arm,head,seed,"), qPrintable(lines[0]));
    QVERIFY(lines[0].contains("test/kl"));
    // A file the disk cannot take is never claimed: exit 3 naming the file and why, and
    // nothing is left under the final name (it was "disk full or no permission?", exit 1, and
    // a device target was replaced by a regular file through the `.partial` rename).
    auto full = runCli({"sweep", "export", "1", "--db", db, "--out", "/dev/full"});
    QCOMPARE(full.exitCode, 3);
    QVERIFY2(full.err.contains("cannot write /dev/full: disk full"), qPrintable(full.err));
    QVERIFY(fs::is_character_file("/dev/full"));
    auto nowhere = runCli({"sweep", "export", "1", "--db", db, "--out", path("nowhere/e.csv")});
    QCOMPARE(nowhere.exitCode, 3);
    QVERIFY2(nowhere.err.contains("its folder " + path("nowhere") + " does not exist"),
             qPrintable(nowhere.err));
    // A folder that is there but takes no new files was said not to exist.
    auto pseudo = runCli({"sweep", "export", "1", "--db", db, "--out", "/proc/self/e.csv"});
    QCOMPARE(pseudo.exitCode, 3);
    QVERIFY2(pseudo.err.contains("its folder /proc/self takes no new files"),
             qPrintable(pseudo.err));
    // A figure the disk cannot take is a file error as an export's (it exited 1, "run failed").
    for (const QString& out : {QString("/proc/self/figure.svg"), path("nowhere/figure.svg")}) {
      auto plot = runCli(
          {"sweep", "plot", "1", "--db", db, "--x", "head", "--metric", "test/kl", "--out", out});
      QCOMPARE(plot.exitCode, 3);
      QVERIFY2(plot.err.contains("cannot write " + out), qPrintable(plot.err));
    }

    // Onto the store itself: refused, exit 2, the store as it was (it was overwritten with the
    // CSV, exit 0, and every run lost).
    auto ontoStore = runCli({"sweep", "export", "1", "--db", db, "--out", db});
    QCOMPARE(ontoStore.exitCode, 2);
    QVERIFY2(ontoStore.err.contains(db + " is the run store itself: the export would overwrite it"),
             qPrintable(ontoStore.err));
    QCOMPARE(runCli({"sweep", "export", "1", "--db", db}).out, exported.out);

    for (const char* ext : {"svg", "png", "pdf"}) {
      const QString out = path(QString("figure.") + ext);
      auto plot = runCli({"sweep", "plot", "1", "--db", db, "--x", "head", "--metric", "test/kl",
                          "--metric", "test/smoothness", "--out", out, "--width", "900", "--height",
                          "400"});
      QVERIFY2(plot.exitCode == 0, qPrintable(plot.err));
      QVERIFY2(plot.err.contains("2 panels, 2 series"), qPrintable(plot.err));
      const std::string bytes = readAll(out);
      if (std::string(ext) == "svg") {
        QVERIFY(bytes.find("<svg") != std::string::npos);
        QVERIFY(bytes.find("</svg>") != std::string::npos);
      } else if (std::string(ext) == "png") {
        QImage image(out);
        QCOMPARE(image.width(), 900);
        QCOMPARE(image.height(), 400);
      } else {
        QCOMPARE(bytes.substr(0, 4), std::string("%PDF"));
        QVERIFY(bytes.find("%%EOF") != std::string::npos);
      }
    }
    // A second identical `sweep run` continues the same study and trains nothing.
    auto again = runCli(tinyStudy(db, 2));
    QCOMPARE(again.exitCode, 0);
    QVERIFY2(again.err.contains("has this exact spec"), qPrintable(again.err));
    QVERIFY(!again.err.contains("start run"));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs"), int64_t(4));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM studies"), int64_t(1));
  }

  // A study some of whose runs failed printed no table (stdout empty), though the README says
  // `sweep run` prints it when the study ends: the table of those that finished is printed, its
  // cells saying how many finished, and the exit code still says some failed. One run here
  // runs out of the address space (a batch of 65536 x 1024 tokens under a 6 GB limit).
  void aStudyWithFailedRunsStillPrintsTheTableOfTheFinished() {
    const QString db = path("partly-failed.db");
    QProcess p;
    p.setChildProcessModifier([] {
      const rlimit limit{rlim_t(6) << 30, rlim_t(6) << 30};
      setrlimit(RLIMIT_AS, &limit);
    });
    const auto r = fl::testing::finishCli(
        p, {"sweep",    "run",       "fope",           "--grid",  "batch_size=2,65536",
            "--set",    "d_model=8", "--set",          "heads=1", "--set",
            "layers=1", "--set",     "train_len=1024", "--set",   "steps=1",
            "--set",    "warmup=0",  "--device",       "cpu",     "--db",
            db},
        300000);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("out of memory on cpu"), qPrintable(r.err));
    QVERIFY2(r.err.contains("1 run did not finish"), qPrintable(r.err));
    const auto rows = r.out.split('\n');
    const auto row = [&](const QString& start) {
      const auto it = std::find_if(rows.begin(), rows.end(),
                                   [&](const QString& line) { return line.startsWith(start); });
      return it == rows.end() ? QString() : *it;
    };
    QVERIFY2(row("| 2 |").contains("(1)"), qPrintable(r.out));
    QVERIFY2(row("| 65536 |").contains("- (0 of 1 finished)"), qPrintable(r.out));
    // The same table `sweep table` prints.
    const auto table = runCli({"sweep", "table", "1", "--db", db});
    QCOMPARE(table.out, r.out);
  }

  // A study whose runs cannot share a group says why instead of training them one by one
  // without a word (on a GPU, the toy trainer's groups are CPU-only: the reason names that).
  void runsThatCannotGroupSayWhy() {
    auto r = runCli(tinyStudy(path("alone.db"), 1, "1"));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("not batched (head linear vs fourier): each run trains alone"),
             qPrintable(r.err));
    QVERIFY2(!r.err.contains("batched (--batch"), qPrintable(r.err));
    auto grouped = runCli(tinyStudy(path("grouped.db"), 1));
    QVERIFY2(grouped.exitCode == 0, qPrintable(grouped.err));
    // Two seeds of each head can group (split further only where spare cores would idle).
    QVERIFY2(!grouped.err.contains("not batched"), qPrintable(grouped.err));
  }

  // A --grid on an axis a built-in study has gives it these values (Table 1 on one dataset),
  // rather than refusing the axis as given twice.
  void aGridOnABuiltInStudysAxisReplacesItsValues() {
    auto r = runCli({"sweep", "run", "fourier-head", "--study", "table1", "--grid", "dataset=gmm2",
                     "--seeds", "1", "--db", path("dry.db"), "--dry-run"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.startsWith("table1: 3 runs of fourier-head"), qPrintable(r.out));
    QCOMPARE(r.out.count("dataset=gmm2 head="), 3);
    // One axis given twice on the command line is still refused.
    auto twice = runCli({"sweep", "run", "fourier-head", "--grid", "lr=0.001,0.01", "--grid",
                         "lr=0.0001", "--db", path("dry.db"), "--dry-run"});
    QCOMPARE(twice.exitCode, 2);
    QVERIFY2(twice.err.contains("axis 'lr' is given twice"), qPrintable(twice.err));
  }

  void aPaperStudyRunShortenedShowsThePaperButGradesNothing() {
    // The one rule of single runs, for studies: a setting that departs from the paper's is
    // shown beside the paper's figures and never compared with them.
    const QString db = path("shortened.db");
    auto r = runCli({"sweep", "run", "fourier-head", "--study", "table1", "--seeds", "1", "--set",
                     "samples=200", "--set", "epochs=1", "--db", db, "--device", "cpu"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("0.146 ± 0.033 not compared"), qPrintable(r.out));
    QVERIFY2(!r.out.contains("compared values agree"), qPrintable(r.out));
    QVERIFY2(!r.out.contains("DIFFERS"), qPrintable(r.out));
    QVERIFY2(r.out.contains("Not compared with the paper: every setting departs from its "
                            "experiment (samples 200 (the paper's 5000), epochs 1 (the paper's "
                            "500))"),
             qPrintable(r.out));
    auto table = runCli({"sweep", "table", "1", "--db", db, "--format", "json"});
    QVERIFY2(table.exitCode == 0, qPrintable(table.err));
    const auto j = nlohmann::json::parse(table.out.toStdString());
    for (const auto& cell : j["cells"]) {
      QVERIFY(cell.contains("departs_from_paper"));
      for (const auto& [metric, entry] : cell["metrics"].items())
        QVERIFY2(entry.value("agrees", nlohmann::json()).is_null(), metric.c_str());
    }
    // Its figure says so under the paper's points, which a figure pasted alone showed beside
    // far-off curves with no word (and the command says it too).
    const QString svg = path("shortened.svg");
    auto plot = runCli({"sweep", "plot", "1", "--db", db, "--out", svg});
    QVERIFY2(plot.exitCode == 0, qPrintable(plot.err));
    QVERIFY2(plot.err.contains("note: the figure says: Departs from the paper's settings: samples "
                               "200 (the paper's 5000), epochs 1 (the paper's 500)"),
             qPrintable(plot.err));
    const std::string drawn = readAll(svg);
    QVERIFY2(drawn.find("not compared.") != std::string::npos, "the figure does not say it");
    // Another x alone draws the study's figure's metrics (it was refused, "--metric: name at
    // least one metric"), and the counts read in words: "1 panel", not "1 panels".
    auto byDataset = runCli({"sweep", "plot", "1", "--db", db, "--x", "dataset", "--out", svg});
    QVERIFY2(byDataset.exitCode == 0, qPrintable(byDataset.err));
    QVERIFY2(byDataset.err.contains(": 2 panels, "), qPrintable(byDataset.err));
    auto one = runCli(
        {"sweep", "plot", "1", "--db", db, "--x", "dataset", "--metric", "test/kl", "--out", svg});
    QVERIFY2(one.err.contains(": 1 panel, "), qPrintable(one.err));
    // The x of the study's figure draws that figure as declared, its bars at ± 1 std as the
    // window's Study tab draws them (they were at ± 0.67); an option still changes its part.
    QVERIFY2(plot.err.contains("(bars: mean ± 1 std over seeds)"), qPrintable(plot.err));
    auto byHead = runCli({"sweep", "plot", "1", "--db", db, "--x", "head", "--out", svg});
    QVERIFY2(byHead.err.contains("(bars: mean ± 1 std over seeds)"), qPrintable(byHead.err));
    QCOMPARE(byHead.err.mid(byHead.err.indexOf("wrote ")),
             plot.err.mid(plot.err.indexOf("wrote ")));
    auto half =
        runCli({"sweep", "plot", "1", "--db", db, "--x", "head", "--band", "half", "--out", svg});
    QVERIFY2(half.err.contains("(bars: mean ± 0.67 std over seeds"), qPrintable(half.err));
  }

  // A study of claims run shorter than it declares judges none of them, naming why, and says
  // under its description what it changed.
  void aStudyOfClaimsRunShortenedJudgesNoClaim() {
    const QString db = path("claims.db");
    auto r = runCli({"sweep", "run", "fope", "--study", "encodings", "--seeds", "1,2", "--set",
                     "steps=4", "--set", "eval_every=4", "--set", "eval_tokens=128", "--set",
                     "passkey_samples=2", "--db", db, "--device", "cpu"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("- not judged: FoPE's perplexity grows less than RoPE's"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("departs: steps 4 (the study's 2000))"), qPrintable(r.out));
    QVERIFY2(r.out.contains("Judged on the tiny preset's runs, not the paper's models: each "
                            "outcome says how the paper's pattern reads at this study's scale"),
             qPrintable(r.out));
    QVERIFY2(!r.out.contains("- holds") && !r.out.contains("CONTRADICTED") &&
                 !r.out.contains("- unresolved"),
             qPrintable(r.out));
    auto shown = runCli({"sweep", "show", "1", "--db", db});
    QVERIFY2(shown.exitCode == 0, qPrintable(shown.err));
    // Its claims, in its own words, with where they are judged.
    QVERIFY2(shown.out.contains("  claims (judged by `sweep table 1`):\n    FoPE's perplexity "
                                "grows less than RoPE's"),
             qPrintable(shown.out));
    QVERIFY2(shown.out.contains("Departs from the study's settings: steps 4 (the study's 2000); "
                                "evaluation: eval_tokens 128 (the study's 8192)"),
             qPrintable(shown.out));
    // Its figure is the paper's: perplexity and passkey accuracy against the length, a line per
    // encoding (`sweep plot` of it asked for --x).
    const QString svg = path("encodings.SVG");  // in any case: p.SVG had been refused
    auto plot = runCli({"sweep", "plot", "1", "--db", db, "--out", svg});
    QVERIFY2(plot.exitCode == 0, qPrintable(plot.err));
    QVERIFY2(plot.err.contains(": 2 panels, 8 series"), qPrintable(plot.err));
    QVERIFY(readAll(svg).find("evaluation length") != std::string::npos);
    // Against an axis, its per-length metrics are refused naming one length to give.
    auto byPosition = runCli({"sweep", "plot", "1", "--db", db, "--x", "position", "--out", svg});
    QCOMPARE(byPosition.exitCode, 2);
    QVERIFY2(byPosition.err.contains("against position, give --metric with one of them "
                                     "(val/ppl@64)"),
             qPrintable(byPosition.err));
    // Its export lists the lengths in their order (@128 came before @64).
    const QString header = runCli({"sweep", "export", "1", "--db", db}).out.section('\n', 0, 0);
    const int at64 = header.indexOf("val/ppl@64"), at128 = header.indexOf("val/ppl@128"),
              at512 = header.indexOf("val/ppl@512");
    QVERIFY2(at64 > 0 && at64 < at128 && at128 < at512, qPrintable(header));
    // One key given two values is refused: the last alone was drawn, as if asked for.
    auto twice = runCli({"sweep", "plot", "1", "--db", db, "--where", "position=rope", "--where",
                         "position=fope", "--out", svg});
    QCOMPARE(twice.exitCode, 2);
    QVERIFY2(twice.err.contains("--where position given twice (\"rope\" and \"fope\")"),
             qPrintable(twice.err));
    auto named = runCli({"sweep", "plot", "1", "--db", db, "--figure", "foo", "--out", svg});
    QCOMPARE(named.exitCode, 2);
    QVERIFY2(named.err.contains("--figure foo: the study declares figures numbered 1"),
             qPrintable(named.err));
    // By its number: the first, and no second.
    auto first = runCli({"sweep", "plot", "1", "--db", db, "--figure", "1", "--out", svg});
    QVERIFY2(first.exitCode == 0, qPrintable(first.err));
    auto second = runCli({"sweep", "plot", "1", "--db", db, "--figure", "2", "--out", svg});
    QCOMPARE(second.exitCode, 2);
    QVERIFY2(second.err.contains("--figure 2: the study declares figures numbered 1"),
             qPrintable(second.err));
  }

  // Evaluated at fewer lengths than its table names, the study aborted (exit 134) after its
  // runs had trained, and `sweep table` named a --metric nobody passed.
  void aStudyWhoseTableNamesUnrecordedMetricsStillPrintsIt() {
    const QString db = path("unrecorded.db");
    auto r = runCli({"sweep",
                     "run",
                     "fope",
                     "--study",
                     "encodings",
                     "--grid",
                     "position=rope",
                     "--seeds",
                     "1",
                     "--set",
                     "steps=4",
                     "--set",
                     "eval_every=4",
                     "--set",
                     "eval_tokens=128",
                     "--set",
                     "eval_factors=1,2",
                     "--set",
                     "passkey_samples=2",
                     "--db",
                     db,
                     "--device",
                     "cpu"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QString note =
        "No finished run recorded val/ppl@256, val/ppl@512, passkey/acc@256, passkey/acc@512, "
        "which the study's table names";
    QVERIFY2(r.out.contains(note), qPrintable(r.out));
    auto table = runCli({"sweep", "table", "1", "--db", db});
    QVERIFY2(table.exitCode == 0, qPrintable(table.err));
    QVERIFY2(table.out.contains(note), qPrintable(table.out));
    auto asked = runCli({"sweep", "table", "1", "--db", db, "--metric", "val/ppl@256"});
    QCOMPARE(asked.exitCode, 2);
    QVERIFY2(asked.err.contains("--metric val/ppl@256: no finished run of this study has it"),
             qPrintable(asked.err));
  }

  void badStudiesExitTwoAndStoreNothing_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown axis") << QStringList{"--grid", "heads=linear"}
                                  << "unknown parameter 'heads'";
    QTest::newRow("bad value") << QStringList{"--grid", "lr=0.01,-1"}
                               << "--grid lr=0.01,-1: 'lr' must be a number in (0, 1], got";
    QTest::newRow("empty axis") << QStringList{"--grid", "head="} << "'head' has no values";
    QTest::newRow("contradicts preset")
        << QStringList{"--preset", "paper-fourier", "--grid", "head=linear,gmm"}
        << "axis 'head' contradicts preset 'paper-fourier'";
    QTest::newRow("too many runs")
        << QStringList{"--grid", "samples=100,101,...,1099", "--grid", "epochs=1,2,...,101"}
        << "the study expands to 101000 runs, over the limit of 100000";
    QTest::newRow("unknown study")
        << QStringList{"--study", "table9"}
        << "unknown study 'table9' for experiment 'fourier-head' (known: ";
    QTest::newRow("bad seeds") << QStringList{"--seeds", "1,x"} << "--seeds: 'seed' must be";
    QTest::newRow("missing file") << QStringList{"--study-file", "/nonexistent/s.json"}
                                  << "--study-file /nonexistent/s.json: no such file";
    // A folder read as an empty file: "not valid JSON: ... unexpected end of input".
    QTest::newRow("a folder") << QStringList{"--study-file", "/tmp"}
                              << "--study-file /tmp: is a folder, not a study file";
    // Empty values read as "not given" (seed 42, the default run); values given twice
    // collapsed silently to one setting.
    QTest::newRow("empty seeds") << QStringList{"--seeds", ""}
                                 << "--seeds: is empty; give seeds such as 1,2,3,42";
    QTest::newRow("empty study") << QStringList{"--study", ""}
                                 << "--study: is empty; give a study the experiment declares";
    QTest::newRow("empty preset") << QStringList{"--preset", ""}
                                  << "--preset: is empty; give a preset of the experiment";
    QTest::newRow("empty device") << QStringList{"--device", ""}
                                  << "--device: is empty; give auto, cpu, cuda or cuda:N";
    // A device this machine lacks, the study's own or asked: each run had been stored and
    // failed, and the next resume trained them all again from step 0.
    QTest::newRow("the runs' device missing")
        << QStringList{"--set", "device=cuda:63"}
        << "error: the study's runs: device 'cuda:63' requested, but ";
    QTest::newRow("asked device missing") << QStringList{"--device", "cuda:63"}
                                          << "error: --device: device 'cuda:63' requested, but ";
    // The study's name names its runs: refused for each of them once stored, every resume too.
    QTest::newRow("control character in the name")
        << QStringList{"--name", QString("x") + QChar(0x1b) + "[31my"}
        << "error: the study's name holds a control character (byte 0x1B at offset 1)";
    QTest::newRow("blank name") << QStringList{"--name", "  "}
                                << "--name: is blank; give a name, or leave --name out";
    QTest::newRow("a value twice") << QStringList{"--grid", "head=linear,fourier,linear"}
                                   << "'head': the value \"linear\" is given twice";
  }
  void badStudiesExitTwoAndStoreNothing() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const QString db = path("bad.db");
    auto r = runCli(QStringList{"sweep", "run", "fourier-head", "--db", db} + args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY(!fs::exists(db.toStdString()));
  }

  // A study whose stored spec is damaged (a bad sector, a hand edit) is the store's fault,
  // named with its study: it read "error: not valid JSON: ..." (exit 2), as if a file given
  // had been wrong.
  void aDamagedStoredStudyIsAStoreErrorNamingIt() {
    const QString db = path("damaged-spec.db");
    auto first = runCli(tinyStudy(db, 1, "1"));
    QVERIFY2(first.exitCode == 0, qPrintable(first.err));
    QCOMPARE(fl::testing::writeSql(db.toStdString(), "UPDATE studies SET spec = '{' WHERE id = 1"),
             std::string());
    auto shown = runCli({"sweep", "show", "1", "--db", db});
    QCOMPARE(shown.exitCode, 3);
    QVERIFY2(shown.err.contains("study 1 (") &&
                 shown.err.contains(") cannot be read: its stored spec is damaged (not valid JSON"),
             qPrintable(shown.err));
    // The listing lists it, saying so, and the store's other studies as ever (one such row
    // made every listing fail).
    auto second = runCli(tinyStudy(db, 1, "2"));
    QVERIFY2(second.exitCode == 0, qPrintable(second.err));
    auto listed = runCli({"sweep", "list", "--db", db});
    QCOMPARE(listed.exitCode, 0);
    QVERIFY2(listed.out.contains("unreadable: its stored spec is damaged (not valid JSON"),
             qPrintable(listed.out));
    QVERIFY2(!listed.out.contains("1970-01-01"), qPrintable(listed.out));  // its other columns
    QCOMPARE(listed.out.count('\n'), 3);  // the header and both studies
  }

  // A resume asked onto a device this machine lacks changes nothing: each run had been
  // claimed and failed, and the next resume trained them again from step 0.
  void aResumeOnAMissingDeviceChangesNothing() {
    const QString db = path("resume-device.db");
    auto first = runCli(tinyStudy(db, 1, "1"));
    QVERIFY2(first.exitCode == 0, qPrintable(first.err));
    const int64_t before = queryInt(db, "SELECT count(*) FROM runs WHERE status = 'finished'");
    auto r = runCli({"sweep", "resume", "1", "--db", db, "--device", "cuda:63"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("error: --device: device 'cuda:63' requested, but "),
             qPrintable(r.err));
    QVERIFY2(r.err.contains("nothing was changed"), qPrintable(r.err));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs WHERE status = 'finished'"), before);
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs"), before);
  }

  // `sweep show` names an arm's zips: an arm sweeping N and gamma together had read as its
  // fixed settings alone.
  void sweepShowNamesAnArmsZips() {
    const QString file = path("arm-zip.json");
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"name": "armzip", "experiment": "fourier-head",
                "set": {"epochs": 1, "samples": 200}, "seeds": [1],
                "arms": [{"name": "F", "set": {"head": "fourier"},
                          "zip": [{"frequencies": [2, 4], "gamma": [0, 1e-6]}]},
                         {"name": "L", "set": {"head": "linear"}}],
                "table": {"rows": "frequencies", "cols": "arm", "metrics": ["test/kl"]}})");
    f.close();
    const QString db = path("arm-zip.db");
    auto r = runCli({"sweep", "run", "--study-file", file, "--db", db, "--device", "cpu"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    auto shown = runCli({"sweep", "show", "1", "--db", db});
    QVERIFY2(
        shown.out.contains(
            "  arm F: set {\"head\":\"fourier\"}; zipped frequencies = 2, 4; gamma = 0, 1e-06"),
        qPrintable(shown.out));
    QVERIFY2(shown.out.contains("  arm L: set {\"head\":\"linear\"}\n"), qPrintable(shown.out));
    // The file's table sets its arms side by side, as declared: `"cols": "arm"` had been
    // stored and then passed over for the long layout.
    auto table = runCli({"sweep", "table", "1", "--db", db});
    QVERIFY2(table.out.contains("| frequencies | gamma | arm = F | arm = L |"),
             qPrintable(table.out));
  }

  // A figure that declares a value of a setting (`where`) is drawn at another one given by
  // --where: it was refused as "--where dataset given twice", though given once.
  void aWhereGivenReplacesTheFiguresOwn() {
    const QString file = path("where.json");
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"name": "where", "experiment": "fourier-head",
                "set": {"epochs": 1, "samples": 200},
                "grid": {"dataset": ["gaussian", "gmm2"], "head": ["linear", "fourier"]},
                "seeds": [1],
                "figures": [{"x": "head", "metrics": ["test/kl"],
                             "where": {"dataset": "gaussian"}}],
                "claims": [{"text": "fourier below linear", "metric": "test/kl",
                            "better": "lower", "a": {"head": "fourier"},
                            "b": {"head": "linear"}}]})");
    f.close();
    const QString db = path("where.db");
    auto r = runCli({"sweep", "run", "--study-file", file, "--db", db, "--device", "cpu"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QString svg = path("where.svg");
    // The figure as declared (gaussian); with the declared value given again, the same figure;
    // with another, another figure.
    auto drawn = [&](const QStringList& where) {
      auto plot = runCli(
          QStringList{"sweep", "plot", "1", "--db", db, "--x", "head", "--out", svg} + where);
      return plot.exitCode == 0
                 ? readAll(svg)
                 : "exit " + std::to_string(plot.exitCode) + ": " + plot.err.toStdString();
    };
    const std::string declared = drawn({});
    QVERIFY2(declared.find("<svg") != std::string::npos, declared.c_str());
    // Titled by the figure, not by the scratch file it was drawn into (a temporary path made
    // every figure's bytes differ).
    QVERIFY2(declared.find("<title>where: test/kl against head</title>") != std::string::npos,
             declared.substr(0, 600).c_str());
    QCOMPARE(drawn({"--where", "dataset=gaussian"}), declared);
    const std::string other = drawn({"--where", "dataset=gmm2"});
    QVERIFY2(other.find("<svg") != std::string::npos, other.c_str());
    QVERIFY(other != declared);
    // One key twice on the command line is still refused.
    auto twice = runCli({"sweep", "plot", "1", "--db", db, "--x", "head", "--where", "dataset=gmm2",
                         "--where", "dataset=gaussian", "--out", svg});
    QCOMPARE(twice.exitCode, 2);
    QVERIFY2(twice.err.contains("--where dataset given twice"), qPrintable(twice.err));
    // A value no run takes is refused with the values there are: drawn, it gave the baselines
    // alone and exit 0.
    auto none = runCli(
        {"sweep", "plot", "1", "--db", db, "--x", "head", "--where", "dataset=beta", "--out", svg});
    QCOMPARE(none.exitCode, 2);
    QVERIFY2(none.err.contains(
                 "--where dataset=beta: no run of the study has it (dataset takes gaussian, gmm2)"),
             qPrintable(none.err));
    // A CSV table says that the claims are elsewhere.
    auto csv = runCli({"sweep", "table", "1", "--db", db, "--format", "csv"});
    QVERIFY2(csv.exitCode == 0, qPrintable(csv.err));
    QVERIFY2(csv.err.contains("note: the CSV holds no claims (the study has 1)"),
             qPrintable(csv.err));
    // A metric the file's figure misspells is the file's, not a --metric never given. A study
    // file is refused for it now; one an earlier build stored is read as it was.
    QFile typo(path("typo.json"));
    QVERIFY(typo.open(QIODevice::WriteOnly));
    typo.write(R"({"name": "typo", "experiment": "fourier-head",
                   "set": {"epochs": 1, "samples": 200}, "grid": {"head": ["linear", "fourier"]},
                   "seeds": [1], "figures": [{"x": "head", "metrics": ["test/kl"]}]})");
    typo.close();
    auto typoRun = runCli({"sweep", "run", "--study-file", path("typo.json"), "--db", db});
    QVERIFY2(typoRun.exitCode == 0, qPrintable(typoRun.err));
    QCOMPARE(fl::testing::writeSql(db.toStdString(),
                                   "UPDATE studies SET spec = replace(spec, '[\"test/kl\"]', "
                                   "'[\"test/kll\"]') WHERE id = 2"),
             std::string());
    auto typoPlot = runCli({"sweep", "plot", "2", "--db", db, "--out", svg});
    QCOMPARE(typoPlot.exitCode, 2);
    QVERIFY2(typoPlot.err.contains("the study's figure metric test/kll: no finished run has it") &&
                 !typoPlot.err.contains("--metric test/kll"),
             qPrintable(typoPlot.err));
  }

  // A study file naming an axis it does not have in its table was accepted (even by --dry-run)
  // and its table silently laid out otherwise.
  void aStudyFileMustNameItsOwnAxesAndParameters() {
    const QString file = path("misspelt.json");
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"name": "misspelt", "experiment": "fourier-head",
                "grid": {"dataset": ["gaussian", "gmm2"]}, "table": {"rows": "datasett"}})");
    f.close();
    const QString db = path("misspelt.db");
    auto r = runCli({"sweep", "run", "--study-file", file, "--db", db, "--dry-run"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--study-file " + file +
                            ": table.rows: 'datasett' is not an axis of the study (axes: dataset)"),
             qPrintable(r.err));
    QVERIFY(!fs::exists(db.toStdString()));
    // A misspelt fixed setting is said at its block, not at the first grid setting.
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(R"({"name": "misspelt", "experiment": "fourier-head", "set": {"epoch": 3},
                "grid": {"dataset": ["gaussian", "gmm2"]}})");
    f.close();
    auto set = runCli({"sweep", "run", "--study-file", file, "--db", db, "--dry-run"});
    QCOMPARE(set.exitCode, 2);
    QVERIFY2(set.err.contains("--study-file " + file + ": set.epoch: unknown parameter 'epoch'"),
             qPrintable(set.err));
    // A claim side no run matches is said (its claim would read "not measured"), by the dry
    // run too; the study is not refused for it.
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(R"({"name": "unmatched", "experiment": "fourier-head", "set": {"epochs": 3},
                "grid": {"dataset": ["gaussian", "gmm2"]},
                "claims": [{"text": "t", "metric": "test/kl", "better": "lower",
                            "a": {"dataset": "gmm2"}, "b": {"dataset": "gmm2", "head": "gmm"}}]})");
    f.close();
    auto unmatched = runCli({"sweep", "run", "--study-file", file, "--db", db, "--dry-run"});
    QVERIFY2(unmatched.exitCode == 0, qPrintable(unmatched.err));
    QVERIFY2(unmatched.err.contains("note: one claim side or reference row matches none of this "
                                    "study's runs, so it is not used (a claim reads \"not "
                                    "measured\"): claims[0].b (dataset \"gmm2\", head \"gmm\")"),
             qPrintable(unmatched.err));
    // A metric its runs never record is refused before any trains, said where it is; it had
    // been found after the whole study had trained, as a claim "not measured".
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(R"({"name": "unrecorded", "experiment": "fourier-head", "set": {"epochs": 3},
                "grid": {"head": ["fourier", "linear"]},
                "claims": [{"text": "t", "metric": "test/kll", "better": "lower",
                            "a": {"head": "fourier"}, "b": {"head": "linear"}}]})");
    f.close();
    for (const bool dry : {true, false}) {
      QStringList args{"sweep", "run", "--study-file", file, "--db", db};
      if (dry) args << "--dry-run";
      auto typo = runCli(args);
      QCOMPARE(typo.exitCode, 2);
      QVERIFY2(typo.err.contains("error: --study-file " + file +
                                 ": claims[0].metric: no run of this study records test/kll "
                                 "(did you mean test/kl?)\n  (the runs of this study record "
                                 "train/loss, test/kl, test/kl_exact, test/mse_expected, "
                                 "test/mse_expected_exact, test/mse_argmax, test/smoothness and "
                                 "the system/ series (cpu_percent, rss_mib, runs_in_process, "
                                 "gpu_util_percent, gpu_mem_mib, gpu_torch_reserved_mib))\n"
                                 "nothing was stored"),
               qPrintable(typo.err));
      QVERIFY(!fs::exists(db.toStdString()));
    }
    // Changed on the command line, a typo of the file's own is still the file's.
    auto changedTypo =
        runCli({"sweep", "run", "--study-file", file, "--db", db, "--dry-run", "--set", "lr=0.01"});
    QCOMPARE(changedTypo.exitCode, 2);
    QVERIFY2(changedTypo.err.contains("error: --study-file " + file +
                                      ": claims[0].metric: no run of this study records test/kll"),
             qPrintable(changedTypo.err));
    // What only the command line's change turns off is said, not refused: passkey trials off,
    // or a preset whose training length has no 64.
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(R"({"name": "lengths", "experiment": "fope", "preset": "tiny",
                "grid": {"position": ["rope", "fope"]}, "seeds": [1],
                "claims": [{"text": "t", "metric": "passkey/acc@128", "better": "higher",
                            "a": {"position": "fope"}, "b": {"position": "rope"}}],
                "table": {"rows": "position", "metrics": ["val/ppl@64"]}})");
    f.close();
    auto off = runCli({"sweep", "run", "--study-file", file, "--db", db, "--dry-run", "--set",
                       "passkey_samples=0"});
    QVERIFY2(off.exitCode == 0, qPrintable(off.err));
    QVERIFY2(off.err.contains("note: with the command line's changes, claims[0].metric: no run "
                              "of this study records passkey/acc@128"),
             qPrintable(off.err));
    auto preset = runCli(
        {"sweep", "run", "--study-file", file, "--db", db, "--dry-run", "--preset", "small"});
    QVERIFY2(preset.exitCode == 0, qPrintable(preset.err));
    QVERIFY2(preset.err.contains("note: with the command line's changes, table.metrics[0]: no "
                                 "run of this study records val/ppl@64"),
             qPrintable(preset.err));
  }

  // Settings that pass each key's range but clash are refused for a study too, before any
  // of its runs exists (they failed one run at a time).
  void clashingCellsAreRefusedBeforeAnyRunExists() {
    const QString db = path("clash.db");
    auto r = runCli({"sweep", "run", "fope", "--db", db, "--grid", "heads=2,3", "--seeds", "1"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("at heads=3: 'heads'=3 does not divide 'd_model'="), qPrintable(r.err));
    QVERIFY(!fs::exists(db.toStdString()));
  }

  // Deleting a study while its runs trained exited 0 and then aborted the trainer (exit 134):
  // refused (exit 2, as `runs delete` of a running run) naming the runs in training; the trainer
  // goes on, and once it has been stopped the study can be deleted.
  void aTrainingStudyIsNotDeleted() {
    const QString db = path("delete-live.db");
    QProcess p;
    p.start(cliPath(), tinyStudy(db, 100000, "1"));
    QVERIFY(p.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(
        queryInt(db, "SELECT count(*) FROM runs WHERE status = 'running'") >= 1, 120000);
    auto refused = runCli({"sweep", "delete", "1", "--db", db});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QRegularExpression("study 1 is training \\(runs? \\d")),
             qPrintable(refused.err));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM studies"), int64_t(1));
    ::kill(static_cast<pid_t>(p.processId()), SIGTERM);
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 143);  // cancelled cleanly, not aborted
    // No finished run: no table of headers alone with exit 0, but what the runs are and how to
    // train them.
    auto table = runCli({"sweep", "table", "1", "--db", db});
    QCOMPARE(table.exitCode, 1);
    QVERIFY(table.out.isEmpty());
    QVERIFY2(table.err.contains(QRegularExpression(
                 "error: study 1 has no finished run to table \\((\\d cancelled|.*missing.*)\\): "
                 "`fourierlab-cli sweep resume 1 --db .*` trains them")),
             qPrintable(table.err));
    // Nor a figure: said alike, exit 1 (it exited 2, as a mistyped metric does).
    auto plot = runCli({"sweep", "plot", "1", "--db", db, "--x", "head", "--metric", "test/kl",
                        "--out", path("none.svg")});
    QCOMPARE(plot.exitCode, 1);
    QVERIFY2(plot.err.contains("error: study 1 has no finished run to plot ("),
             qPrintable(plot.err));
    QVERIFY(!QFileInfo::exists(path("none.svg")));
    // An export holds what the runs reached, and says so (it said nothing).
    auto exported = runCli({"sweep", "export", "1", "--db", db});
    QCOMPARE(exported.exitCode, 0);
    QVERIFY2(
        exported.err.contains(QRegularExpression(
            "note: 0 of \\d runs finished \\(.*\\); their rows hold the values they reached, "
            "as their status column says: `fourierlab-cli sweep resume 1 --db .*` trains them")),
        qPrintable(exported.err));
    auto deleted = runCli({"sweep", "delete", "1", "--db", db});
    QVERIFY2(deleted.exitCode == 0, qPrintable(deleted.err));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM studies"), int64_t(0));
  }

  // A study that took a run of the user's as it was (made before the study: same settings and
  // seed) must not take it along when deleted: `sweep delete` deleted it, a pinned baseline
  // with notes among them, without asking. Only the runs the study trained go, and on a
  // terminal it asks first, as `runs delete` does.
  void deletingAStudyKeepsTheRunsItTookAsTheyWere() {
    const QString db = path("delete-reused.db");
    auto own = runCli({"run", "fourier-head", "--db", db, "--set", "head=linear", "--set", "seed=3",
                       "--set", "samples=200", "--set", "epochs=2", "--set", "eval_every=1",
                       "--device", "cpu"});
    QVERIFY2(own.exitCode == 0, qPrintable(own.err));
    QCOMPARE(runCli({"runs", "tag", "1", "pinned", "--db", db}).exitCode, 0);
    auto study = runCli(tinyStudy(db, 2, "3"));
    QVERIFY2(study.exitCode == 0, qPrintable(study.err));
    QVERIFY2(study.err.contains("1 run trained before the study (#1) is taken as it is"),
             qPrintable(study.err));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs"), int64_t(2));

    if (!QStandardPaths::findExecutable("script").isEmpty()) {
      QProcess p;
      p.start("script",
              {"-qec", QString("'%1' sweep delete 1 --db '%2'").arg(cliPath(), db), "/dev/null"});
      QVERIFY(p.waitForStarted());
      p.write("n\n");
      p.closeWriteChannel();
      QVERIFY(p.waitForFinished(60000));
      const QString declined = QString::fromUtf8(p.readAll());
      QVERIFY2(declined.contains("delete study 1 (fourier-head sweep) and 1 run(s) it trained? "
                                 "[y/N] nothing deleted"),
               qPrintable(declined));
      QCOMPARE(queryInt(db, "SELECT count(*) FROM studies"), int64_t(1));
    }
    auto deleted = runCli({"sweep", "delete", "1", "--db", db});  // no terminal: at once
    QVERIFY2(deleted.exitCode == 0, qPrintable(deleted.err));
    QVERIFY2(deleted.err.contains("deleted study 1 (fourier-head sweep) and 1 run(s) it trained; "
                                  "kept run 1 (made before it, or used by another study)"),
             qPrintable(deleted.err));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM studies"), int64_t(0));
    QCOMPARE(queryInt(db, "SELECT group_concat(id) FROM runs"), int64_t(1));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM tags WHERE run_id = 1"), int64_t(1));
  }

  // A run found by its identity leaves out what it does not use: a linear head stored with
  // frequencies 4 is the linear head a study asks for at 12, taken as it is, not trained again.
  void aStudyTakesARunThatDiffersOnlyInWhatItDoesNotUse() {
    const QString db = path("unused.db");
    const QStringList tiny{"--set", "samples=200", "--set", "epochs=2", "--device", "cpu"};
    auto own = runCli(QStringList{"run", "fourier-head", "--db", db, "--set", "head=linear",
                                  "--set", "frequencies=4", "--set", "seed=3"} +
                      tiny);
    QVERIFY2(own.exitCode == 0, qPrintable(own.err));
    auto dry = runCli(QStringList{"sweep", "run", "fourier-head", "--db", db, "--grid",
                                  "head=linear,fourier", "--set", "frequencies=12", "--seeds", "3",
                                  "--dry-run"} +
                      tiny);
    QVERIFY2(dry.exitCode == 0, qPrintable(dry.err));
    QVERIFY2(dry.out.contains(QRegularExpression("head=linear seed=3  \\[[0-9a-f]{16}\\]  "
                                                 "finished already: run #1")),
             qPrintable(dry.out));
    QVERIFY2(dry.out.contains("1 of them finished already, taken as it is; 1 to train"),
             qPrintable(dry.out));
  }

  // Two processes on one study: the one left without runs to claim waits for the other's, and
  // its exit code is the whole study's. It exited 0, with no table, while the other still
  // trained. The other's run is 100000 epochs long, so it cannot end first; it is then killed:
  // the waiting one sees its run interrupted and says the study did not finish. (It was
  // stopped with SIGSTOP first: stopped inside a write, it held the store's lock, and the
  // second process could write nothing until the test timed out.)
  void aProcessWaitsForTheRunsAnotherProcessTrains() {
    const QString db = path("shared.db");
    const QStringList study{"sweep",
                            "run",
                            "fourier-head",
                            "--db",
                            db,
                            "--zip",
                            "head=linear,fourier,epochs=100000,2",
                            "--seeds",
                            "1",
                            "--set",
                            "samples=200",
                            "--parallel",
                            "1",
                            "--batch",
                            "off",
                            "--device",
                            "cpu"};
    QProcess first;
    first.start(cliPath(), study);
    QVERIFY(first.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(
        queryInt(db, "SELECT count(*) FROM runs WHERE status = 'running'") == 1, 120000);
    const auto firstPid = static_cast<pid_t>(first.processId());
    QProcess second;
    second.start(cliPath(), study);
    QVERIFY(second.waitForStarted());
    QString err;
    QTRY_VERIFY_WITH_TIMEOUT(
        (err += QString::fromUtf8(second.readAllStandardError()))
            .contains("waiting for the runs of study 1 that another process trains"),
        120000);
    QVERIFY2(err.contains("finished"), qPrintable(err));  // its own run, before waiting
    QCOMPARE(second.state(), QProcess::Running);
    ::kill(firstPid, SIGKILL);
    QVERIFY(first.waitForFinished(60000));
    QVERIFY(second.waitForFinished(120000));
    err += QString::fromUtf8(second.readAllStandardError());
    QCOMPARE(second.exitCode(), 1);
    QVERIFY2(err.contains("study 1: 1 of 2 finished, 0 failed, 1 trained by another process"),
             qPrintable(err));
    QVERIFY2(err.contains("1 run did not finish"), qPrintable(err));
    // The table of the run that finished, which says the other did not.
    const QString table = QString::fromUtf8(second.readAllStandardOutput());
    QVERIFY2(table.contains("2 runs, 1 finished") && table.contains("(0 of 1 finished)"),
             qPrintable(table));
  }

  void aStudyKilledHalfwayIsFinishedByResumeWithoutRetraining() {
    const QString db = path("killed.db");
    QProcess p;
    // The Fourier heads train on 20 times the samples (20 times the steps per epoch, the same
    // 150 evaluations), so their group is still training seconds after the linear one ended:
    // the same sizes let both groups end within one of the store's flushes on a loaded machine,
    // leaving nothing to resume.
    auto study = tinyStudy(db, 150, "1,2,3");
    study.removeAt(study.indexOf("samples=200") - 1);  // its --set
    study.removeAll("samples=200");
    study.replace(study.indexOf("--grid"), "--zip");
    study.replace(study.indexOf("head=linear,fourier"), "head=linear,fourier,samples=200,4000");
    p.start(cliPath(), study);
    QVERIFY(p.waitForStarted());
    // Kill once a run has finished and another has not. Waited for as an event, not within a
    // time: the old loop gave up after 2000 polls (40 s and more) and asked for a run "running"
    // at the same moment, which a loaded machine could miss while the next group waited for its
    // thread.
    QTRY_VERIFY_WITH_TIMEOUT(
        queryInt(db, "SELECT count(*) FROM runs WHERE status = 'finished'") >= 1 &&
            queryInt(db, "SELECT count(*) FROM runs WHERE status <> 'finished'") >= 1,
        240000);
    ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
    p.waitForFinished();
    const int64_t finishedBefore =
        queryInt(db, "SELECT count(*) FROM runs WHERE status = 'finished'");
    const int64_t firstFinished =
        queryInt(db, "SELECT min(id) FROM runs WHERE status = 'finished'");
    const int64_t finishedAt =
        queryInt(db, "SELECT CAST(finished * 1000 AS INTEGER) FROM runs WHERE id = " +
                         std::to_string(firstFinished));
    QVERIFY(finishedBefore < 6);

    auto resume = runCli({"sweep", "resume", "1", "--db", db});
    QVERIFY2(resume.exitCode == 0, qPrintable(resume.err));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs"), int64_t(6));  // nothing duplicated
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs WHERE status = 'finished'"), int64_t(6));
    QVERIFY2(!resume.err.contains("start run " + QString::number(firstFinished) + ":"),
             qPrintable(resume.err));
    QCOMPARE(queryInt(db, "SELECT CAST(finished * 1000 AS INTEGER) FROM runs WHERE id = " +
                              std::to_string(firstFinished)),
             finishedAt);
    QCOMPARE(resume.err.count("start run"), int(6 - finishedBefore));
    // Every run evaluated 150 times, each step once.
    QCOMPARE(queryInt(db, "SELECT min(count) FROM series WHERE key = 'test/kl'"), int64_t(150));
    QCOMPARE(queryInt(db, "SELECT max(count) FROM series WHERE key = 'test/kl'"), int64_t(150));
    QCOMPARE(queryInt(db,
                      "SELECT count(*) FROM (SELECT series_id, step FROM metrics GROUP BY 1, 2 "
                      "HAVING count(*) > 1)"),
             int64_t(0));
  }

  // A study stops on SIGTERM and SIGHUP as on Ctrl-C (one handler for `run` and `sweep`):
  // every active run saves a checkpoint and ends cancelled, the exit code is 128 + the signal,
  // and `sweep resume` finishes it.
  void aStudyStopsCleanlyOnSigtermAndSighup_data() {
    QTest::addColumn<int>("signal");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("name");
    QTest::newRow("SIGTERM") << int(SIGTERM) << 143 << "SIGTERM";
    QTest::newRow("SIGHUP") << int(SIGHUP) << 129 << "SIGHUP";
  }
  void aStudyStopsCleanlyOnSigtermAndSighup() {
    QFETCH(int, signal);
    QFETCH(int, exitCode);
    QFETCH(QString, name);
    const QString db = path("signal-" + name + ".db");
    QProcess p;
    p.start(cliPath(), tinyStudy(db, 150, "1"));
    QVERIFY(p.waitForStarted());
    bool training = false;
    for (int i = 0; i < 3000 && !training; ++i) {
      QTest::qWait(20);
      training = queryInt(db, "SELECT count(*) FROM metrics") > 0 &&
                 queryInt(db, "SELECT count(*) FROM runs WHERE status = 'running'") >= 1;
    }
    QVERIFY(training);
    ::kill(static_cast<pid_t>(p.processId()), signal);
    QVERIFY(p.waitForFinished(60000));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QVERIFY2(p.exitCode() == exitCode, qPrintable(err));
    QVERIFY2(err.contains("stopped by " + name), qPrintable(err));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs WHERE status IN ('running', 'interrupted')"),
             int64_t(0));
    QVERIFY(queryInt(db, "SELECT count(*) FROM runs WHERE status = 'cancelled'") >= 1);
    // Each run stopped after a step has a checkpoint to go on from (one stopped before its
    // first step has nothing to keep: resume trains it from the start).
    QCOMPARE(queryInt(db,
                      "SELECT count(*) FROM runs WHERE status = 'cancelled' AND last_step > 0 "
                      "AND id NOT IN (SELECT run_id FROM artifacts)"),
             int64_t(0));
    auto resume = runCli({"sweep", "resume", "1", "--db", db});
    QVERIFY2(resume.exitCode == 0, qPrintable(resume.err));
    QVERIFY2(resume.err.contains("resumed from step"), qPrintable(resume.err));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs WHERE status = 'finished'"), int64_t(2));
    QCOMPARE(queryInt(db, "SELECT min(count) FROM series WHERE key = 'test/kl'"), int64_t(150));
  }

  // A study's job sbatch refuses (no controller, a bad partition) is not bad usage: the study
  // is stored, nothing was submitted, and the exit code (4) says so. It had read exit 2, which
  // the README says leaves nothing stored.
  void aJobSbatchRefusesExitsFourWithTheStudyStored() {
    const QString db = path("sbatch-refused.db");
    const QString bin = path("sbatch-refused-bin");
    QVERIFY(QDir().mkpath(bin));
    {
      QFile script(bin + "/sbatch");
      QVERIFY(script.open(QIODevice::WriteOnly));
      script.write(
          "#!/bin/sh\necho 'sbatch: error: Unable to contact slurm controller' >&2\n"
          "exit 1\n");
    }
    QFile::setPermissions(bin + "/sbatch", QFileDevice::ReadOwner | QFileDevice::ExeOwner);
    const QByteArray oldPath = qgetenv("PATH");
    qputenv("PATH", bin.toLocal8Bit() + ":" + oldPath);
    auto run = tinyStudy(db, 2, "1");
    run << "--slurm"
        << "--work-dir" << path("sbatch-refused-job");
    const auto refused = runCli(run);
    const auto again = runCli({"sweep", "resume", "1", "--slurm", "--db", db});
    qputenv("PATH", oldPath);
    QVERIFY2(refused.exitCode == 4, qPrintable(refused.err));
    QVERIFY2(refused.err.contains("sbatch refused the job: ") &&
                 refused.err.contains("Unable to contact slurm controller") &&
                 refused.err.contains("nothing was submitted"),
             qPrintable(refused.err));
    QVERIFY2(refused.err.contains("the study is stored as 1; `"), qPrintable(refused.err));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM studies"), int64_t(1));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM study_jobs"), int64_t(0));
    QVERIFY2(again.exitCode == 4, qPrintable(again.err));
    QVERIFY2(again.err.contains("the study is stored as 1; `"), qPrintable(again.err));
    // Its export counts the runs it holds, not the rows of cells no run was made for.
    const auto exported = runCli({"sweep", "export", "1", "--db", db, "--out", path("none.csv")});
    QVERIFY2(exported.err.contains("wrote 0 runs of study 1 to " + path("none.csv") +
                                   " (and 2 rows of cells no run was made for yet)"),
             qPrintable(exported.err));

    // `sweep resume --slurm` with an sbatch that runs `script`.
    const auto resumeWithSbatch = [&](const char* script) {
      QFile file(bin + "/sbatch");
      if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) qFatal("cannot write sbatch");
      file.write(script);
      file.close();
      qputenv("PATH", bin.toLocal8Bit() + ":" + oldPath);
      auto result = runCli({"sweep", "resume", "1", "--slurm", "--db", db});
      qputenv("PATH", oldPath);
      return result;
    };
    // An sbatch killed by a signal is said so: it had read "(exit -1)", a code it never gave.
    const auto killed = resumeWithSbatch("#!/bin/sh\nkill -KILL $$\n");
    QVERIFY2(killed.exitCode == 4, qPrintable(killed.err));
    QVERIFY2(killed.err.contains("sbatch printed nothing (killed by signal 9: Killed)"),
             qPrintable(killed.err));
    QVERIFY2(!killed.err.contains("exit -1"), qPrintable(killed.err));

    // An answer without a job id: the job may be queued, so neither bad usage (2) nor a
    // refusal (4), and not "submits it again" before a look at the queue.
    const auto unclear = resumeWithSbatch("#!/bin/sh\necho 'Submitted batch job'\n");
    QVERIFY2(unclear.exitCode == 5, qPrintable(unclear.err));
    QVERIFY2(unclear.err.contains("sbatch answered 'Submitted batch job' where it prints the "
                                  "job's id") &&
                 unclear.err.contains("if `squeue --me` does not show the job, `"),
             qPrintable(unclear.err));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM study_jobs"), int64_t(0));
  }

  // A study run whose resume is refused (its corpus changed since) is left interrupted and
  // resumable, and the study's lines count it so: they had counted it failed ("| 2 failed",
  // "0 of 2 finished, 2 failed"), though nothing of the run was wrong.
  void aRefusedResumeIsCountedInterruptedNotFailed() {
    const QString db = path("refused.db");
    const QString corpus = path("refused.txt");
    const QByteArray text = fl::testing::sentenceCorpus();
    QVERIFY(fl::testing::writeWholeFile(corpus, text));
    QProcess p;
    p.start(cliPath(), {"sweep",
                        "run",
                        "fope",
                        "--db",
                        db,
                        "--seeds",
                        "1,2",
                        "--set",
                        "d_model=16",
                        "--set",
                        "heads=1",
                        "--set",
                        "layers=1",
                        "--set",
                        "train_len=16",
                        "--set",
                        "steps=100000",
                        "--set",
                        "eval_every=2",
                        "--set",
                        "eval_tokens=64",
                        "--set",
                        "passkey_mix=0",
                        "--set",
                        "checkpoint_every=1",
                        "--set",
                        "corpus=" + corpus,
                        "--device",
                        "cpu"});
    QVERIFY(p.waitForStarted());
    // Both runs training, each past a checkpoint: waited for as an event.
    QTRY_VERIFY_WITH_TIMEOUT(
        queryInt(db, "SELECT count(DISTINCT run_id) FROM artifacts") == 2 &&
            queryInt(db, "SELECT count(*) FROM runs WHERE status = 'running'") == 2,
        120000);
    ::kill(static_cast<pid_t>(p.processId()), SIGTERM);
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs WHERE status = 'cancelled'"), int64_t(2));

    QVERIFY(fl::testing::writeWholeFile(corpus, text + "edited\n"));
    const auto refused = runCli({"sweep", "resume", "1", "--db", db});
    QVERIFY2(refused.exitCode == 1, qPrintable(refused.err));
    QCOMPARE(refused.err.count("why: not resumed: corpus '" + corpus +
                               "' is not the text this run trained on"),
             2);
    QVERIFY2(refused.err.contains("| 2 interrupted"), qPrintable(refused.err));
    QVERIFY2(refused.err.contains("study 1: 0 of 2 finished, 0 failed, 2 interrupted in "),
             qPrintable(refused.err));
    QVERIFY2(!refused.err.contains("1 failed") && !refused.err.contains("2 failed"),
             qPrintable(refused.err));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs WHERE status = 'interrupted'"), int64_t(2));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs WHERE status = 'failed'"), int64_t(0));
    // Its corpus moved away: alike (the runs had been marked failed, "no such file").
    QVERIFY(QFile::remove(corpus));
    const auto missing = runCli({"sweep", "resume", "1", "--db", db});
    QVERIFY2(missing.exitCode == 1, qPrintable(missing.err));
    QCOMPARE(missing.err.count("why: not resumed: "), 2);
    QVERIFY2(missing.err.contains("study 1: 0 of 2 finished, 0 failed, 2 interrupted in "),
             qPrintable(missing.err));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs WHERE status = 'failed'"), int64_t(0));
    QVERIFY(queryInt(db, "SELECT count(*) FROM artifacts") >= 2);  // their checkpoints kept
  }

  // A step that never ends after the signal (a library stuck inside it) must not keep a
  // study's process alive: past the grace (0 here, so every run's step is still under way) the
  // runs still training are recorded cancelled, the process exits 143 without waiting for their
  // threads, and `sweep resume` takes the study up again.
  void aSignalStopsAStudyEvenWhenItsStepsDoNotEnd() {
    const QString db = path("stuck.db");
    QProcess p;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("FOURIERLAB_STOP_GRACE_MS", "0");
    p.setProcessEnvironment(env);
    p.start(cliPath(),
            {"sweep",         "run",        "fope",     "--db",      db,         "--seeds",
             "1,2",           "--parallel", "2",        "--threads", "1",        "--set",
             "d_model=16",    "--set",      "heads=1",  "--set",     "layers=1", "--set",
             "steps=1000000", "--set",      "warmup=0", "--device",  "cpu"});
    QVERIFY(p.waitForStarted());
    bool training = false;
    for (int i = 0; i < 3000 && !training; ++i) {
      QTest::qWait(20);
      training = queryInt(db, "SELECT count(*) FROM runs WHERE status = 'running'") == 2;
    }
    QVERIFY(training);
    ::kill(static_cast<pid_t>(p.processId()), SIGTERM);
    QVERIFY(p.waitForFinished(30000));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QVERIFY2(p.exitCode() == 143, qPrintable(err));
    // Each run stuck in a step is recorded so; one whose step ended as the signal came (a
    // step of this model takes a millisecond) stops at its checkpoint as after any signal.
    // Both are cancelled in the store, whichever it was.
    const int64_t stuck = queryInt(db,
                                   "SELECT count(*) FROM runs WHERE status = 'cancelled' AND "
                                   "message LIKE 'SIGTERM: its step in progress had not ended%'");
    QVERIFY2(stuck >= 1, qPrintable(err));
    QVERIFY2(err.contains(QString("stopped by SIGTERM: %1 run%2 recorded cancelled (SIGTERM: its "
                                  "step in progress had not ended")
                              .arg(stuck)
                              .arg(stuck == 1 ? "" : "s")),
             qPrintable(err));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs WHERE status <> 'cancelled'"), int64_t(0));

    QProcess resume;
    resume.setProcessEnvironment(env);
    resume.start(cliPath(), {"sweep", "resume", "1", "--db", db});
    QVERIFY(resume.waitForStarted());
    training = false;
    for (int i = 0; i < 3000 && !training; ++i) {
      QTest::qWait(20);
      training = queryInt(db, "SELECT count(*) FROM runs WHERE status = 'running'") >= 1;
    }
    QVERIFY(training);
    ::kill(static_cast<pid_t>(resume.processId()), SIGTERM);
    QVERIFY(resume.waitForFinished(30000));
    const QString resumeErr = QString::fromUtf8(resume.readAllStandardError());
    QVERIFY2(resume.exitCode() == 143, qPrintable(resumeErr));
    QVERIFY2(resumeErr.contains("start run"), qPrintable(resumeErr));
  }

  // Reading commands never create a store (nor adopt an empty file).
  void readingAMissingStoreCreatesNothing() {
    const QString missing = path("nodir/x.db");
    for (const QStringList& args : {QStringList{"sweep", "list"}, QStringList{"sweep", "show", "1"},
                                    QStringList{"sweep", "resume", "1"}}) {
      auto r = runCli(args + QStringList{"--db", missing});
      QCOMPARE(r.exitCode, 3);
      QVERIFY2(r.err.contains("no run store at this path"), qPrintable(r.err));
    }
    QVERIFY(!fs::exists(path("nodir").toStdString()));
    const QString empty = path("empty.db");
    std::ofstream(empty.toStdString()).flush();
    auto r = runCli({"sweep", "list", "--db", empty});
    QCOMPARE(r.exitCode, 3);
    QCOMPARE(fs::file_size(empty.toStdString()), std::uintmax_t(0));
  }

  void twoResumesOfOneStudyTrainNoRunTwice() {
    const QString db = path("twice.db");
    // A study whose first process died right after it began.
    QProcess first;
    first.start(cliPath(), tinyStudy(db, 60, "1,2,3"));
    QVERIFY(first.waitForStarted());
    for (int i = 0; i < 2000 && queryInt(db, "SELECT count(*) FROM runs") < 1; ++i)
      QTest::qWait(10);
    ::kill(static_cast<pid_t>(first.processId()), SIGKILL);
    first.waitForFinished();

    QProcess a, b;
    a.start(cliPath(), {"sweep", "resume", "1", "--db", db, "--parallel", "1"});
    b.start(cliPath(), {"sweep", "resume", "1", "--db", db, "--parallel", "1"});
    QVERIFY(a.waitForFinished(120000));
    QVERIFY(b.waitForFinished(120000));
    QCOMPARE(a.exitCode(), 0);
    QCOMPARE(b.exitCode(), 0);
    const QString errs = QString::fromUtf8(a.readAllStandardError() + b.readAllStandardError());
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs"), int64_t(6));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs WHERE status = 'finished'"), int64_t(6));
    // No cell was started by both: each run id appears in at most one "start run N:" line.
    for (int64_t id = 1; id <= 6; ++id)
      QVERIFY2(errs.count("start run " + QString::number(id) + ":") <= 1, qPrintable(errs));
    QCOMPARE(queryInt(db, "SELECT max(count) FROM series WHERE key = 'test/kl'"), int64_t(60));
  }
};

QTEST_MAIN(TestCliSweep)
#include "test_cli_sweep.moc"
