// Tests fourierlab-cli with the run store, as a user runs it: history commands, exit code 3 with
// the file named and left unchanged for every kind of bad database, kill -9 mid-run then
// resume, and two processes writing into one database at once.
#include <QtTest>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "core/engine/verdict.h"
#include "core/store/run_store.h"
#include "core/store/schema.h"
#include "tests/cli_process.h"
#include "tests/sqlite_probe.h"
#include "tests/store_damage.h"

using fl::testing::cliPath;
using fl::testing::lastJsonLine;
using fl::testing::queryInt;
using fl::testing::queryText;
using fl::testing::runCli;
using fl::testing::runCliWithFileSizeLimit;
#include <sqlite3.h>

namespace fs = std::filesystem;

namespace {

// A schema version one past this build's: what a newer FourierLab would have written.
const std::string kNewerVersion = std::to_string(fl::store::kSchemaVersion + 1);

std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

const QStringList kTiny{"--set", "samples=300", "--set", "epochs=3", "--device", "cpu"};

QStringList filesIn(const QString& folder) {
  return QDir(folder).entryList(QDir::Files | QDir::System | QDir::NoDotAndDotDot);
}

// The CLI as a user whom file permissions bind: root may write anything, so as root it runs as
// the unprivileged uid 65534. Nothing when that user cannot run it (no setpriv, or the binary
// sits in a folder that user cannot enter, such as a 0700 home).
std::optional<fl::testing::CliResult> runCliBoundByPermissions(const QStringList& args) {
  if (geteuid() != 0) return runCli(args);
  if (QStandardPaths::findExecutable("setpriv").isEmpty()) return std::nullopt;
  const QStringList asNobody{"--reuid=65534", "--regid=65534", "--clear-groups", cliPath()};
  QProcess probe;
  probe.start("setpriv", asNobody + QStringList{"--version"});
  if (!probe.waitForFinished(30000) || probe.exitStatus() != QProcess::NormalExit ||
      probe.exitCode() != 0)
    return std::nullopt;
  QProcess p;
  p.start("setpriv", asNobody + args);
  if (!p.waitForFinished(120000)) {
    p.kill();
    p.waitForFinished();
  }
  return fl::testing::CliResult{p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
                                QString::fromUtf8(p.readAllStandardOutput()),
                                QString::fromUtf8(p.readAllStandardError())};
}

// Takes write permission away from everyone on the store and its folder; others may still
// read them and enter the folders above.
void makeUnwritable(const QString& folder, const QString& store, const QString& top) {
  const auto readable = fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read;
  const auto enterable = fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec;
  for (const auto& f : QDir(folder).entryList(QDir::Files))
    fs::permissions((folder + "/" + f).toStdString(), readable);
  fs::permissions(store.toStdString(), readable);
  fs::permissions(folder.toStdString(), readable | enterable);
  fs::permissions(top.toStdString(), fs::perms::all);
}

}  // namespace

class TestCliStore : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString db(const QString& name) const { return m_dir.path() + "/" + name; }

 private slots:
  void historyCommandsWork() {
    const QString d = db("history.db");
    auto a = runCli(
        QStringList{"run", "fourier-head", "--db", d, "--name", "fourier", "--tag", "x", "--json"} +
        kTiny);
    QCOMPARE(a.exitCode, 0);
    QCOMPARE(lastJsonLine(a.out)["run_id"].get<int>(), 1);
    auto b =
        runCli(QStringList{"run", "fourier-head", "--db", d, "--preset", "paper-linear", "--json"} +
               kTiny);
    QCOMPARE(b.exitCode, 0);

    auto list = runCli({"runs", "--db", d, "list", "--json"});
    QCOMPARE(list.exitCode, 0);
    auto runs = nlohmann::json::parse(list.out.toStdString());
    QCOMPARE(runs.size(), size_t(2));
    for (const char* key : {"id", "experiment", "name", "status", "created", "metrics"})
      QVERIFY2(runs[0].contains(key), key);
    QCOMPARE(runs[0]["name"].get<std::string>(), std::string("fourier"));
    QCOMPARE(runs[0]["status"].get<std::string>(), std::string("finished"));
    QVERIFY(runs[0]["metrics"]["test/kl"].is_number());

    // Each edit says what it left (they printed nothing).
    const auto tagged = runCli({"runs", "--db", d, "tag", "2", "baseline", "linear"});
    QCOMPARE(tagged.exitCode, 0);
    QCOMPARE(tagged.err, QString("run 2's tags: baseline, linear\n"));
    const auto noted = runCli({"runs", "--db", d, "note", "2", "the linear head"});
    QCOMPARE(noted.exitCode, 0);
    QCOMPARE(noted.err, QString("run 2's notes set\n"));
    const auto renamed = runCli({"runs", "--db", d, "rename", "2", "linear"});
    QCOMPARE(renamed.exitCode, 0);
    QVERIFY2(renamed.err.startsWith("run 2 renamed: \"linear\" (was \""), qPrintable(renamed.err));
    auto filtered = nlohmann::json::parse(
        runCli({"runs", "--db", d, "list", "--tag", "baseline", "--json"}).out.toStdString());
    QCOMPARE(filtered.size(), size_t(1));
    QCOMPARE(filtered[0]["name"].get<std::string>(), std::string("linear"));

    auto show = runCli({"runs", "--db", d, "show", "2", "--json"});
    auto shown = nlohmann::json::parse(show.out.toStdString());
    QCOMPARE(shown["notes"].get<std::string>(), std::string("the linear head"));
    QCOMPARE(shown["config"]["head"].get<std::string>(), std::string("linear"));
    QVERIFY(shown["summaries"]["test/kl"].contains("min_step"));
    QVERIFY(shown["build"].contains("torch_version"));

    auto compare = runCli({"runs", "--db", d, "compare", "1", "2", "--json"});
    auto cmp = nlohmann::json::parse(compare.out.toStdString());
    QCOMPARE(cmp["config_differences"], nlohmann::json({"head"}));  // only what differs

    const QString csv = db("export.csv");
    QCOMPARE(runCli({"runs", "--db", d, "export", "1", "2", "--out", csv}).exitCode, 0);
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const auto lines = QString::fromUtf8(file.readAll()).trimmed().split('\n');
    QCOMPARE(lines.first(), QString("run_id,experiment,name,key,step,wall_seconds,value"));
    QVERIFY(lines.size() > 10);
    QVERIFY(QFileInfo::exists(db("export.snapshots.csv")));
    // Each index with its coordinate where the axis has one: the learned PDF's bins at their
    // centres z (50 bins over [-1, 1]: the first at -0.98), so the rows plot on their own.
    QFile snapshots(db("export.snapshots.csv"));
    QVERIFY(snapshots.open(QIODevice::ReadOnly));
    const auto rows = QString::fromUtf8(snapshots.readAll()).trimmed().split('\n');
    QCOMPARE(rows.first(), QString("run_id,name,step,i0,i1,x0,x1,value"));
    const auto pdfRow = std::find_if(rows.begin(), rows.end(), [](const QString& row) {
      return row.startsWith("1,pdf/pred,") && row.split(',').at(4) == "0";
    });
    QVERIFY(pdfRow != rows.end());
    const auto fields = pdfRow->split(',');
    QCOMPARE(fields.size(), 8);
    QVERIFY2(std::abs(fields.at(6).toDouble() + 0.98) < 1e-6, qPrintable(*pdfRow));
    // A row per run to join the long tables on: what set it and where its metrics ended. The
    // linear head's frequencies are empty (it does not use them); its last KL is the one
    // `runs list` reports.
    QFile runsTable(db("export.runs.csv"));
    QVERIFY(runsTable.open(QIODevice::ReadOnly));
    const auto runRows = QString::fromUtf8(runsTable.readAll()).trimmed().split('\n');
    QCOMPARE(runRows.size(), 3);
    const auto header = runRows.at(0).split(',');
    QVERIFY2(runRows.at(0).startsWith(
                 "run_id,experiment,name,status,verdict,verdict_detail,trained_on,tags,notes,"
                 "created,dataset,"),
             qPrintable(runRows.at(0)));
    const auto column = [&](const QString& name) {
      const auto at = header.indexOf(name);
      if (at < 0) qFatal("no column %s in %s", qPrintable(name), qPrintable(runRows.at(0)));
      return at;
    };
    // RFC 4180 fields: a quoted one may hold commas and doubled quotes.
    const auto fieldsOf = [](const QString& line) {
      QStringList out{QString()};
      bool quoted = false;
      for (int i = 0; i < line.size(); ++i) {
        const QChar c = line.at(i);
        if (quoted && c == '"' && i + 1 < line.size() && line.at(i + 1) == '"')
          out.back() += line.at(++i);
        else if (c == '"')
          quoted = !quoted;
        else if (c == ',' && !quoted)
          out << QString();
        else
          out.back() += c;
      }
      return out;
    };
    const auto fourierRow = fieldsOf(runRows.at(1));
    const auto linearRow = fieldsOf(runRows.at(2));
    QCOMPARE(fourierRow.size(), header.size());
    QCOMPARE(linearRow.size(), header.size());
    QCOMPARE(fourierRow.at(column("frequencies")), QString("12"));
    QCOMPARE(linearRow.at(column("frequencies")), QString());
    QCOMPARE(linearRow.at(column("head")), QString("linear"));
    QCOMPARE(linearRow.at(column("samples")), QString("300"));
    // Comma-separated (a tag holds no comma), the field quoted.
    QCOMPARE(linearRow.at(column("tags")), QString("baseline,linear"));
    QCOMPARE(linearRow.at(column("trained_on")), QString("cpu"));
    // Its notes and when it was made, as the JSON export has them.
    QCOMPARE(linearRow.at(column("notes")), QString("the linear head"));
    QCOMPARE(fourierRow.at(column("notes")), QString());
    // Compared exactly, not within a tolerance: the CSV writes 17 significant digits, so the
    // double reads back as the JSON's own.
    QCOMPARE(linearRow.at(column("created")).toDouble(), runs[1]["created"].get<double>());
    // Each run's verdict as History shows it: these shortened paper runs are not compared, and
    // say why.
    QCOMPARE(linearRow.at(column("verdict")), QString("not compared"));
    QVERIFY2(linearRow.at(column("verdict_detail"))
                 .startsWith("not compared with the paper (paper-linear): "),
             qPrintable(linearRow.at(column("verdict_detail"))));
    QVERIFY2(fourierRow.at(column("verdict_detail"))
                 .startsWith("not compared with the paper (paper-fourier): "),
             qPrintable(fourierRow.at(column("verdict_detail"))));
    for (int i = 0; i < 2; ++i) {
      const double listed = runs[static_cast<size_t>(i)]["metrics"]["test/kl"].get<double>();
      const double tabled = (i == 0 ? fourierRow : linearRow).at(column("last:test/kl")).toDouble();
      QVERIFY2(std::abs(tabled - listed) <= 1e-12 * std::abs(listed),
               qPrintable(QString("%1 vs %2").arg(tabled, 0, 'g', 17).arg(listed, 0, 'g', 17)));
    }
    // CSV on stdout cannot carry the snapshots; it must say so, not drop them silently.
    auto toStdout = runCli({"runs", "--db", d, "export", "1"});
    QCOMPARE(toStdout.exitCode, 0);
    QVERIFY(toStdout.out.startsWith("run_id,experiment,name,key,step,wall_seconds,value"));
    QVERIFY2(toStdout.err.contains("snapshots") && toStdout.err.contains("--out"),
             qPrintable(toStdout.err));
    auto json = runCli({"runs", "--db", d, "export", "1", "--format", "JSON"});  // any case
    QCOMPARE(nlohmann::json::parse(json.out.toStdString())["runs"][0]["metrics"]["test/kl"].size(),
             size_t(1));
    // The file's name says the format where --format does not (x.json held CSV); a --format
    // the name contradicts is refused.
    const QString named = db("named.json");
    QCOMPARE(runCli({"runs", "--db", d, "export", "1", "--out", named}).exitCode, 0);
    QFile namedFile(named);
    QVERIFY(namedFile.open(QIODevice::ReadOnly));
    QCOMPARE(nlohmann::json::parse(namedFile.readAll().toStdString())["runs"][0]["id"], 1);
    QVERIFY(!QFileInfo::exists(named + ".snapshots.csv"));
    // In any case: X.JSON had been written as CSV.
    const QString upper = db("NAMED.JSON");
    QCOMPARE(runCli({"runs", "--db", d, "export", "1", "--out", upper}).exitCode, 0);
    QFile upperFile(upper);
    QVERIFY(upperFile.open(QIODevice::ReadOnly));
    QCOMPARE(nlohmann::json::parse(upperFile.readAll().toStdString())["runs"][0]["id"], 1);
    QVERIFY(!QFileInfo::exists(upper + ".snapshots.csv"));
    // Its companions beside the file it writes: through a link, beside the target (they had gone
    // beside the link), and named alike in any case (Y.CSV had given Y.CSV.snapshots.csv).
    QVERIFY(QDir().mkpath(db("linked-target")));
    QVERIFY(QFile::link(db("linked-target/t.CSV"), db("linked.csv")));
    QCOMPARE(runCli({"runs", "--db", d, "export", "1", "--out", db("linked.csv")}).exitCode, 0);
    for (const char* name : {"t.CSV", "t.snapshots.csv", "t.runs.csv"})
      QVERIFY2(QFileInfo::exists(db("linked-target/") + name), name);
    QVERIFY(!QFileInfo::exists(db("linked.snapshots.csv")));
    QVERIFY(QFileInfo(db("linked.csv")).isSymLink());
    const auto clash =
        runCli({"runs", "--db", d, "export", "1", "--format", "csv", "--out", db("clash.json")});
    QCOMPARE(clash.exitCode, 2);
    QVERIFY2(clash.err.contains("--out " + db("clash.json") +
                                " ends in .json but --format csv was given: give one of them"),
             qPrintable(clash.err));
    QVERIFY(!QFileInfo::exists(db("clash.json")));

    // --db is accepted after the subcommand too, not only between `runs` and it.
    auto listAfter = runCli({"runs", "list", "--json", "--db", d});
    QCOMPARE(listAfter.exitCode, 0);
    QCOMPARE(
        nlohmann::json::parse(listAfter.out.toStdString()),
        nlohmann::json::parse(runCli({"runs", "--db", d, "list", "--json"}).out.toStdString()));
    auto showAfter = runCli({"runs", "show", "2", "--db", d, "--json"});
    QCOMPARE(showAfter.exitCode, 0);
    QCOMPARE(nlohmann::json::parse(showAfter.out.toStdString())["name"].get<std::string>(),
             std::string("linear"));
    // A note replacing another says what it was.
    const auto replaced = runCli({"runs", "note", "2", "edited", "--db", d});
    QCOMPARE(replaced.exitCode, 0);
    QCOMPARE(replaced.err, QString("run 2's notes set (they were: \"the linear head\")\n"));
    QCOMPARE(nlohmann::json::parse(
                 runCli({"runs", "--db", d, "show", "2", "--json"}).out.toStdString())["notes"]
                 .get<std::string>(),
             std::string("edited"));
    // A note of several lines is shown under its field, each line indented alike.
    QCOMPARE(runCli({"runs", "note", "2", "first line\nsecond line", "--db", d}).exitCode, 0);
    const auto shownNote = runCli({"runs", "--db", d, "show", "2"});
    QVERIFY2(shownNote.out.contains("  notes     first line\n            second line\n  config "),
             qPrintable(shownNote.out));

    QCOMPARE(runCli({"runs", "--db", d, "delete", "1"}).exitCode, 0);
    QCOMPARE(nlohmann::json::parse(runCli({"runs", "--db", d, "list", "--json"}).out.toStdString())
                 .size(),
             size_t(1));
    auto missing = runCli({"runs", "--db", d, "show", "1"});
    QCOMPARE(missing.exitCode, 2);
    QVERIFY(missing.err.contains("no run 1 in"));
  }

  // Runs of two experiments: each experiment's runs are compared among themselves, as in the
  // window's History, and the experiments are named (fourier-head beside fope listed every
  // parameter of both as a difference, null on one side).
  void runsOfTwoExperimentsCompareWithinEach() {
    const QString d = db("two-experiments.db");
    QCOMPARE(runCli(QStringList{"run", "fourier-head", "--db", d} + kTiny).exitCode, 0);
    QCOMPARE(runCli(QStringList{"run", "fourier-head", "--db", d, "--set", "frequencies=6"} + kTiny)
                 .exitCode,
             0);
    QCOMPARE(runCli({"run",      "fope",
                     "--db",     d,
                     "--device", "cpu",
                     "--set",    "d_model=16",
                     "--set",    "heads=2",
                     "--set",    "layers=1",
                     "--set",    "train_len=16",
                     "--set",    "passkey_mix=0",
                     "--set",    "eval_tokens=256",
                     "--set",    "batch_size=4",
                     "--set",    "steps=4",
                     "--set",    "synthetic_chars=20000"})
                 .exitCode,
             0);
    const auto json = runCli({"runs", "--db", d, "compare", "1", "2", "3", "--json"});
    QCOMPARE(json.exitCode, 0);
    const auto j = nlohmann::json::parse(json.out.toStdString());
    QCOMPARE(j["config_differences"], nlohmann::json::array({"frequencies"}));
    QVERIFY(j["runs"][2]["config"]["frequencies"].is_null());
    const auto text = runCli({"runs", "--db", d, "compare", "1", "2", "3"});
    QCOMPARE(text.exitCode, 0);
    const QStringList all = text.out.split('\n');
    // Each run's name whole above the table, whose columns say only "run 1".
    QVERIFY2(all.size() > 6 && all[0].startsWith("run 1: defaults, edited: ") &&
                 all[1].startsWith("run 2: defaults, edited: ") &&
                 all[1].contains("frequencies 6") && all[2].startsWith("run 3: defaults, edited: "),
             qPrintable(text.out));
    const QStringList lines = all.mid(3);
    QVERIFY2(lines[0].simplified() == "run 1 run 2 run 3", qPrintable(text.out));
    QVERIFY2(
        lines.size() > 3 && lines[1].simplified() == "experiment fourier-head fourier-head fope",
        qPrintable(text.out));
    QVERIFY2(lines[2].simplified() == "frequencies 12 6 -", qPrintable(text.out));
    // Every row as wide as the header: each column as wide as its widest cell (long statuses
    // and metric names ran into the next column).
    for (const QString& line : lines)
      if (!line.isEmpty() && !line.startsWith('('))
        QVERIFY2(line.size() == lines[0].size(), qPrintable(line + "\n" + text.out));
    // A metric a run never recorded reads "-" (it read "nan", as a diverged value would).
    const auto kl = std::find_if(lines.begin(), lines.end(),
                                 [](const QString& l) { return l.startsWith("test/kl "); });
    QVERIFY2(kl != lines.end() && kl->simplified().endsWith(" -") && !kl->contains("nan"),
             qPrintable(text.out));
    // Metrics by length in reading order, as `runs list` has them: @16 before @128 (they came
    // as text sorts them, @128 first).
    std::vector<int> lengths;
    for (const QString& line : lines) {
      const auto match = QRegularExpression("^\\S+@(\\d+) ").match(line);
      if (match.hasMatch() && line.startsWith("val/ppl@"))
        lengths.push_back(match.captured(1).toInt());
    }
    QVERIFY2(lengths.size() > 1 && std::is_sorted(lengths.begin(), lengths.end()),
             qPrintable(text.out));
    // Results only: the process's CPU and memory are the machine's, not the runs' (the JSON
    // keeps them).
    QVERIFY2(!text.out.contains("system/"), qPrintable(text.out));
    QVERIFY(j["runs"][0]["metrics"].contains("system/rss_mib"));
    const auto alone = runCli({"runs", "--db", d, "compare", "1", "3"});
    QVERIFY2(alone.out.contains("(no setting differs between runs of one experiment)"),
             qPrintable(alone.out));
  }

  // `runs list` cut a long name at its end: three study runs all read "embeddings · Fourier,
  // frozen (the paper's rescue) · see…". The cut is in the middle, so the seed stays.
  void aLongNameIsCutInItsMiddle() {
    const QString d = db("long-name.db");
    QCOMPARE(runCli(QStringList{"run", "fourier-head", "--db", d} + kTiny).exitCode, 0);
    const QString name = "embeddings · Fourier embeddings, frozen (the paper's rescue) · seed=3";
    QCOMPARE(runCli({"runs", "--db", d, "rename", "1", name}).exitCode, 0);
    const auto list = runCli({"runs", "--db", d, "list"});
    const QStringList lines = list.out.split('\n');
    QVERIFY2(lines.size() > 1, qPrintable(list.out));
    const QString row = lines[1];
    QVERIFY2(row.contains("embeddings · Fourier") && row.contains("…") &&
                 row.contains("rescue) · seed=3 "),
             qPrintable(list.out));
    // The header's name column as wide as the cut name: the columns after it line up.
    QCOMPARE(row.indexOf("finished"), lines[0].indexOf("status"));
    // The seed has a column of its own (two seeds of one setting read alike in a cut name).
    const qsizetype seedEnd = lines[0].indexOf("seed") + 4;
    QVERIFY(seedEnd > 4);
    QCOMPARE(row.mid(seedEnd - 2, 2), QString("42"));
  }

  // `runs show` names what the run's config holds but does not use, and why, as the History
  // greys it: a linear head's `"frequencies":12` read as if N mattered to it.
  void runsShowNamesTheSettingsARunDoesNotUse() {
    const QString d = db("unused.db");
    QCOMPARE(runCli(QStringList{"run", "fourier-head", "--db", d, "--set", "head=linear"} + kTiny)
                 .exitCode,
             0);
    const auto linear = runCli({"runs", "--db", d, "show", "1"});
    QVERIFY2(linear.out.contains("  not used  frequencies (used only when head is fourier); "),
             qPrintable(linear.out));
  }

  // Two runs of one config and seed, KL 0.48 against 0.04, read "(identical configs)" and
  // nothing more where an older build had not recorded how each trained: a batched run adds
  // its products in another order than a lone one. Both recorded alone: nothing to add; one
  // unrecorded: how each trained, and why that can matter.
  void identicalConfigsSayHowEachTrained() {
    const QString d = db("twins.db");
    for (int i = 0; i < 2; ++i)
      QCOMPARE(runCli(QStringList{"run", "fourier-head", "--db", d} + kTiny).exitCode, 0);
    const auto twins = runCli({"runs", "--db", d, "compare", "1", "2"});
    QVERIFY2(twins.out.contains("(identical configs)\n") && !twins.out.contains("trained "),
             qPrintable(twins.out));
    QCOMPARE(fl::testing::writeSql(d.toStdString(), "UPDATE runs SET build = '{}' WHERE id = 1"),
             std::string());
    const auto older = runCli({"runs", "--db", d, "compare", "1", "2"});
    QCOMPARE(older.exitCode, 0);
    QVERIFY2(older.out.contains("(identical configs; a batched run adds its products in another "
                                "order than a lone one, so one config and seed can end apart"),
             qPrintable(older.out));
    const QStringList lines = older.out.split('\n');
    const auto trained = std::find_if(lines.begin(), lines.end(),
                                      [](const QString& l) { return l.startsWith("trained "); });
    QVERIFY2(trained != lines.end() && trained->simplified() == "trained not recorded alone",
             qPrintable(older.out));
  }

  // An empty --device trained on auto, an empty --out exported to stdout and a blank --name
  // (or `runs rename` to "") was stored: each read as "not given". Refused, exit 2, nothing
  // stored; and a count that is not one says so in words.
  void emptyOrBlankOptionValuesAreRefused() {
    const QString d = db("empty-values.db");
    for (const auto& [args, message] :
         {std::pair<QStringList, QString>{{"run", "fourier-head", "--device", ""},
                                          "--device: is empty; give auto, cpu, cuda or cuda:N"},
          {{"run", "fourier-head", "--name", " "}, "--name: is blank; give a name"},
          {{"runs", "export", "1", "--out", ""},
           "--out: is empty; give a file, or leave --out out"},
          {{"runs", "rename", "1", "  "}, "name: is blank; give a name"},
          {{"runs", "rename", "1", ""}, "name: is empty; give a name"}}) {
      const auto r = runCli(args + QStringList{"--db", d});
      QVERIFY2(r.exitCode == 2,
               qPrintable(args.join(' ') + ": exit " + QString::number(r.exitCode)));
      QVERIFY2(r.err.contains(message), qPrintable(r.err));
      QVERIFY(!QFileInfo::exists(d));
    }
  }

  // An empty --db read as "not given": `runs delete 3 --yes --db "$SCRATCH"` with the variable
  // unset deleted run 3 of the default store. Empty or blank, it is refused, exit 2, for every
  // command, and no store is opened or made (" " had become a store file named " ").
  void anEmptyOrBlankStoreIsRefused() {
    const QString cwd = QDir::currentPath();
    QVERIFY(QDir::setCurrent(m_dir.path()));
    for (const QString& given : {QString(""), QString(" ")})
      for (const QStringList& args :
           {QStringList{"runs", "delete", "1", "--yes"}, QStringList{"runs", "list"},
            QStringList{"sweep", "list"}, QStringList{"run", "fourier-head"} + kTiny}) {
        const auto r = runCli(args + QStringList{"--db", given});
        QVERIFY2(r.exitCode == 2,
                 qPrintable(args.join(' ') + ": exit " + QString::number(r.exitCode)));
        QVERIFY2(r.err.contains(QString("--db: is %1; give a store file, or leave --db out for "
                                        "the default store")
                                    .arg(given.isEmpty() ? "empty" : "blank")),
                 qPrintable(r.err));
        QVERIFY(!QFileInfo::exists(m_dir.path() + "/ "));
      }
    // Written "--db=": the next word had become the store ("--json", a file of that name).
    for (const QStringList& args : {QStringList{"runs", "list", "--db="},
                                    QStringList{"run", "fourier-head", "--db=", "--json"} + kTiny,
                                    QStringList{"run", "fourier-head", "--name=", "--json"}}) {
      const auto r = runCli(args);
      QVERIFY2(r.exitCode == 2,
               qPrintable(args.join(' ') + ": exit " + QString::number(r.exitCode)));
      QVERIFY2(r.err.contains(": is empty (written '--"), qPrintable(r.err));
      QVERIFY(!QFileInfo::exists(m_dir.path() + "/--json"));
    }
    QVERIFY(QDir::setCurrent(cwd));
  }

  // An export onto the store's own files overwrote them with exit 0: `--out runs.db` left a
  // CSV where every run had been. Each way of naming one is refused, exit 2, naming what it
  // is, and the store still holds its runs.
  void anExportOntoTheStoresOwnFilesIsRefused() {
    const QString d = db("own.db");
    QCOMPARE(
        runCli(QStringList{"run", "fourier-head", "--db", d, "--set", "checkpoint_every=1"} + kTiny)
            .exitCode,
        0);
    const QString folder = QFileInfo(d).absolutePath();
    QVERIFY(QFile::link(d, db("own-link.db")));
    const QString checkpointFolder = d + ".files/run-1";
    const QStringList checkpoints = QDir(checkpointFolder).entryList({"*.pt"});
    QVERIFY(!checkpoints.isEmpty());
    const QList<QPair<QString, QString>> cases{
        {d, "is the run store itself"},
        {folder + "/./sub/../own.db", "is the run store itself"},
        {db("own-link.db"), "is the run store itself"},
        {d + "-wal", "is the run store's write-ahead log"},
        {d + "-shm", "is the run store's shared-memory index"},
        {checkpointFolder + "/" + checkpoints.front(), "is inside the run store's folder"},
        {d + ".files", "is the run store's folder of checkpoints"}};
    for (const auto& [out, what] : cases)
      for (const QString format : {"csv", "json"}) {
        const auto r = runCli({"runs", "--db", d, "export", "1", "--format", format, "--out", out});
        QVERIFY2(r.exitCode == 2, qPrintable(out + ": exit " + QString::number(r.exitCode)));
        QVERIFY2(r.err.contains(out + " " + what) && r.err.contains("choose another file"),
                 qPrintable(r.err));
      }
    const auto list = runCli({"runs", "--db", d, "list", "--json"});
    QCOMPARE(list.exitCode, 0);
    QCOMPARE(nlohmann::json::parse(list.out.toStdString()).size(), size_t(1));
    QVERIFY(!QDir(checkpointFolder).entryList({"*.pt"}).isEmpty());
  }

  // A name, note or tag that is not UTF-8 was stored, and then every JSON listing of the store
  // aborted (uncaught nlohmann type_error, exit 134). Now each is refused, exit 2, naming the
  // byte; and a store that already holds one (written before) still lists, the byte replaced.
  void textThatIsNotUtf8IsRefusedAndAStoredOneStillLists() {
    const QString d = db("utf8.db");
    QCOMPARE(runCli(QStringList{"run", "fourier-head", "--db", d} + kTiny).exitCode, 0);
    // QProcess passes arguments as UTF-8: the shell's printf types the raw byte 0xFF.
    const auto withRawByte = [&](const QString& command) {
      QProcess p;
      p.setProcessEnvironment(QProcessEnvironment::systemEnvironment());
      p.start("sh", {"-c", "bad=$(printf 'n\\377'); \"$0\" " + command + " --db \"$1\"",
                     fl::testing::cliPath(), d});
      p.waitForFinished(120000);
      return std::pair{p.exitCode(), QString::fromUtf8(p.readAllStandardError())};
    };
    for (const auto& [command, what] :
         {std::pair<QString, QString>{"runs rename 1 \"$bad\"", "the name"},
          {"runs note 1 \"$bad\"", "the notes"},
          {"runs tag 1 \"$bad\"", "the tag"},
          {"run fourier-head --name \"$bad\" --set samples=300 --set epochs=3", "the name"},
          {"run fourier-head --tag \"$bad\" --set samples=300 --set epochs=3", "the tag"}}) {
      const auto [code, err] = withRawByte(command);
      QVERIFY2(code == 2, qPrintable(command + ": exit " + QString::number(code) + ": " + err));
      const QString verb = what == "the notes" ? " are" : " is";
      QVERIFY2(err.contains(what + verb + " not UTF-8 text (byte 0xFF at offset 1)"),
               qPrintable(err));
    }
    // A control character was stored and printed raw (`runs list` broke its table over lines
    // and passed an escape sequence to the terminal); notes keep their line breaks.
    for (const auto& [args, said] : std::vector<std::pair<QStringList, QString>>{
             {{"runs", "rename", "1", "two\nlines"},
              "the name holds a control character (byte 0x0A at offset 3): a name is one line"},
             {{"runs", "rename", "1", "red\x1b[31m"},
              "the name holds a control character (byte 0x1B at offset 3)"},
             {{"runs", "note", "1", "bell\a"},
              "the notes hold a control character (byte 0x07 at offset 4)"}}) {
      const auto r = runCli(args + QStringList{"--db", d});
      QCOMPARE(r.exitCode, 2);
      QVERIFY2(r.err.contains(said), qPrintable(r.err));
    }
    QCOMPARE(runCli({"runs", "note", "1", "two\nlines\tand a tab", "--db", d}).exitCode, 0);
    QCOMPARE(fl::testing::queryInt(d.toStdString(), "SELECT COUNT(*) FROM runs"), 1);
    // Written by an older build: listed, shown and exported as JSON with U+FFFD in its place.
    QCOMPARE(fl::testing::writeSql(d.toStdString(), "UPDATE runs SET name = CAST(X'6EFF' AS TEXT)"),
             std::string());
    for (const QStringList& args :
         {QStringList{"runs", "--db", d, "list", "--json"},
          QStringList{"runs", "--db", d, "show", "1", "--json"},
          QStringList{"runs", "--db", d, "export", "1", "--format", "json"}}) {
      const auto r = runCli(args);
      QVERIFY2(r.exitCode == 0, qPrintable(args.join(' ') + ": " + r.err));
      QVERIFY2(r.out.contains(QString::fromUtf8("n\uFFFD")) || r.out.contains("n\xEF\xBF\xBD"),
               qPrintable(r.out.left(300)));
    }
  }

  // A listing, a table or an export written to a full device exited 0: every command that
  // prints now says it could not, exit 3, whatever its size (one buffer or many).
  void outputToAFullDeviceExitsThree() {
    const QString d = db("full-output.db");
    QCOMPARE(runCli(QStringList{"run", "fourier-head", "--db", d} + kTiny).exitCode, 0);
    for (const QStringList& args :
         {QStringList{"runs", "--db", d, "list"}, QStringList{"runs", "--db", d, "show", "1"},
          QStringList{"runs", "--db", d, "export", "1", "--format", "csv"},
          QStringList{"list", "--json"}, QStringList{"--help"}, QStringList{"--version"}}) {
      auto r = runCli(args, 120000, "/dev/full");
      QVERIFY2(r.exitCode == 3,
               qPrintable(args.join(' ') + ": exit " + QString::number(r.exitCode)));
      QVERIFY2(r.err.contains("could not be written to standard output (/dev/full)"),
               qPrintable(r.err));
    }
  }

  // `runs list | head` ended with "error: the output could not be written to standard output
  // (pipe:[...]): Broken pipe": a reader that stopped reading is no failure to report. The CLI
  // ends silently with the code a tool SIGPIPE ends has (141), small output or large.
  void aReaderThatStopsReadingEndsTheCommandSilently() {
    const QString d = db("closed-pipe.db");
    QCOMPARE(runCli(QStringList{"run", "fourier-head", "--db", d} + kTiny).exitCode, 0);
    int ends[2];
    QCOMPARE(::pipe(ends), 0);
    ::close(ends[0]);  // no one will read
    for (const QStringList& args :
         {QStringList{"runs", "--db", d, "list"},
          QStringList{"runs", "--db", d, "export", "1", "--format", "csv"}}) {
      QProcess p;
      const int writeEnd = ends[1];
      p.setChildProcessModifier([writeEnd] { ::dup2(writeEnd, STDOUT_FILENO); });
      const auto r = fl::testing::finishCli(p, args, 120000);
      QVERIFY2(r.exitCode == 141,
               qPrintable(args.join(' ') + ": exit " + QString::number(r.exitCode) + ": " + r.err));
      QVERIFY2(!r.err.contains("could not be written"), qPrintable(r.err));
    }
    ::close(ends[1]);
  }

  // `runs list` says a finished run's verdicts in a few words from its typed verdicts: a
  // message that reads like a verdict is not one, and a verdict needs no message.
  void runsListHeadlinesTheTypedVerdictsNotTheMessage() {
    const QString d = db("headlines.db");
    QCOMPARE(
        runCli(QStringList{"run", "fourier-head", "--db", d, "--name", "judged"} + kTiny).exitCode,
        0);
    const auto execute = [&](const std::string& sql) {
      sqlite3* handle = nullptr;
      QCOMPARE(sqlite3_open(d.toStdString().c_str(), &handle), SQLITE_OK);
      sqlite3_busy_timeout(handle, 5000);
      char* error = nullptr;
      const int rc = sqlite3_exec(handle, sql.c_str(), nullptr, nullptr, &error);
      QVERIFY2(rc == SQLITE_OK, error ? error : "");
      sqlite3_free(error);
      sqlite3_close(handle);
    };
    const auto statusOfRunOne = [&] {
      const auto list = runCli({"runs", "--db", d, "list"});
      // The status (after the id, experiment, seed and name): its words up to the date
      // ("finished:not compared").
      const auto match =
          QRegularExpression("^\\s*1\\s+\\S+\\s+\\d+\\s+\\S+\\s+(\\S+(?: (?!\\d{4}-)\\S+)*)",
                             QRegularExpression::MultilineOption)
              .match(list.out);
      return match.hasMatch() ? match.captured(1) : "(no row) " + list.out;
    };
    // A shortened paper run (the tiny settings): not compared, said as History says it.
    QCOMPARE(statusOfRunOne(), QString("finished:not compared"));
    execute(
        "UPDATE runs SET message = 'test/kl 0.1 vs paper 0.1 ± 0.01: within the paper''s spread' "
        "WHERE id = 1");
    QCOMPARE(statusOfRunOne(), QString("finished:not compared"));  // not read from the message
    execute(
        "INSERT INTO run_verdicts (run_id, position, source, subject, label, passed, detail) "
        "VALUES (1, 0, 'experiment', 'judge', 'LEAKS', 0, 'LEAKS -- stated by the test')");
    QCOMPARE(statusOfRunOne(), QString("finished:LEAKS"));
    // A long headline widens its column: the dates still start under "created".
    execute(
        "UPDATE run_verdicts SET label = 'errors partly as in paper (1 of 3 judged)' "
        "WHERE run_id = 1");
    const QStringList lines = runCli({"runs", "--db", d, "list"}).out.split('\n');
    QVERIFY2(lines.size() >= 2 && lines[1].contains("partly as in paper"),
             qPrintable(lines.join('\n')));
    const qsizetype dateAt = lines[1].indexOf(QRegularExpression("\\d{4}-\\d\\d-\\d\\d "));
    QVERIFY2(dateAt > 0 && dateAt == lines[0].indexOf("created"), qPrintable(lines.join('\n')));
    // The JSON of a list, a run and an export carries the verdicts the table headlines (the
    // list's had none, its table "finished:errors partly as in paper").
    execute(
        "INSERT INTO run_verdicts (run_id, position, source, subject, label, passed, detail, "
        "value, paper_mean, paper_std, preset) VALUES (1, 1, 'paper', 'test/kl', 'within paper', "
        "1, 'test/kl 0.150 vs paper 0.146 ± 0.033: within the paper''s spread', 0.15, 0.146, "
        "0.033, 'paper-fourier')");
    const auto listed = nlohmann::json::parse(
        runCli({"runs", "--db", d, "list", "--json"}).out.toStdString())[0]["verdicts"];
    const auto shown = nlohmann::json::parse(
        runCli({"runs", "--db", d, "show", "1", "--json"}).out.toStdString())["verdicts"];
    const auto exported =
        nlohmann::json::parse(runCli({"runs", "--db", d, "export", "1", "--format", "json"})
                                  .out.toStdString())["runs"][0]["verdicts"];
    for (const auto& verdicts : {listed, shown, exported}) {
      QCOMPARE(verdicts.size(), size_t(2));
      QCOMPARE(verdicts[0]["source"].get<std::string>(), std::string("experiment"));
      QCOMPARE(verdicts[0]["passed"].get<bool>(), false);
      QVERIFY(!verdicts[0].contains("paper_mean"));
      QCOMPARE(verdicts[1]["label"].get<std::string>(), std::string("within paper"));
      QCOMPARE(verdicts[1]["passed"].get<bool>(), true);
      QCOMPARE(verdicts[1]["paper_mean"].get<double>(), 0.146);
      QCOMPARE(verdicts[1]["paper_std"].get<double>(), 0.033);
      QCOMPARE(verdicts[1]["preset"].get<std::string>(), std::string("paper-fourier"));
    }
  }

  // A folder given as the store: the reading commands said so, `run` and `sweep run` said
  // SQLite's "unable to open database file".
  void aFolderGivenAsTheStoreIsSaidSoByEveryCommand() {
    const QString folder = db("a-folder.db");
    QVERIFY(QDir().mkpath(folder));
    for (const QStringList& args :
         {QStringList{"runs", "list"}, QStringList{"run", "fourier-head"} + kTiny,
          QStringList{"sweep", "run", "fourier-head", "--grid", "head=linear,fourier"} + kTiny}) {
      const auto r = runCli(args + QStringList{"--db", folder});
      QCOMPARE(r.exitCode, 3);
      QVERIFY2(r.err.contains(folder + ": is a folder, not a run store"), qPrintable(r.err));
    }
    QVERIFY(QDir(folder).isEmpty());
  }

  void badDatabasesExitThreeNamingTheFileUnchanged_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("message");
    QTest::newRow("not sqlite") << "text"
                                << "is not an SQLite database";
    QTest::newRow("truncated") << "truncated"
                               << "is truncated or corrupt";
    QTest::newRow("newer") << "newer"
                           << "was written by a newer FourierLab";
    // The newer version only in the -wal, which a read-write close would checkpoint.
    QTest::newRow("newer, in the WAL") << "newer-wal"
                                       << "was written by a newer FourierLab";
    QTest::newRow("locked") << "locked"
                            << "another process holds the write lock";
    // A corrupt page in the middle used to be accepted and written to (exit 0). Which check
    // finds it depends on what the page held (the open's quick check: "is truncated or corrupt",
    // the integrity check: "is corrupt"); both refuse.
    QTest::newRow("corrupt page") << "corrupt"
                                  << "corrupt";
    // A schema version that is not a number aborted every command (exit 134) and left a -wal.
    QTest::newRow("schema 'abc'") << "schema:abc"
                                  << "has a malformed schema version 'abc'";
    QTest::newRow("schema past int") << "schema:99999999999"
                                     << "has a malformed schema version '99999999999'";
  }
  void badDatabasesExitThreeNamingTheFileUnchanged() {
    QFETCH(QString, kind);
    QFETCH(QString, message);
    const QString d = db("bad-" + kind + ".db");
    const std::string path = d.toStdString();
    sqlite3* holder = nullptr;
    if (kind == "text") {
      std::ofstream(path) << std::string(4096, 'x');
    } else if (kind == "newer-wal") {
      const QString source = db("bad-newer-wal-source.db");
      QCOMPARE(runCli(QStringList{"run", "fourier-head", "--db", source} + kTiny).exitCode, 0);
      sqlite3* writer = nullptr;
      sqlite3_open(source.toStdString().c_str(), &writer);
      sqlite3_exec(writer,
                   ("PRAGMA wal_autocheckpoint=0; UPDATE meta SET value='" + kNewerVersion +
                    "' WHERE key='schema_version'")
                       .c_str(),
                   nullptr, nullptr, nullptr);
      // Copied while open: the newer version lives only in the WAL.
      for (const char* suffix : {"", "-wal", "-shm"})
        fs::copy_file(source.toStdString() + suffix, path + suffix,
                      fs::copy_options::overwrite_existing);
      sqlite3_close(writer);
      QVERIFY(fs::file_size(path + "-wal") > 0);
    } else {
      QCOMPARE(runCli(QStringList{"run", "fourier-head", "--db", d} + kTiny).exitCode, 0);
      sqlite3_open(path.c_str(), &holder);
      sqlite3_exec(holder, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
      if (kind == "truncated" || kind == "corrupt") {
        sqlite3_exec(holder, "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr);
        sqlite3_close(holder);
        holder = nullptr;
        if (kind == "truncated")
          fs::resize_file(path, fs::file_size(path) / 2);
        else
          fl::testing::corruptMiddlePages(path);
      } else if (kind == "newer" || kind.startsWith("schema:")) {
        const std::string value = kind == "newer" ? kNewerVersion : kind.mid(7).toStdString();
        const std::string sql = "UPDATE meta SET value='" + value +
                                "' WHERE key='schema_version'; PRAGMA journal_mode=DELETE";
        sqlite3_exec(holder, sql.c_str(), nullptr, nullptr, nullptr);
        sqlite3_close(holder);
        holder = nullptr;
      } else {
        sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);  // held past 5 s
      }
    }
    const std::string before = readBytes(path);
    // Only WAL content matters. (An empty -wal, as in the locked case, may go: this process's
    // readBytes of the main file drops the holder's POSIX locks, so a closing CLI believes it is
    // the last connection.)
    const bool hadWal = fs::exists(path + "-wal") && fs::file_size(path + "-wal") > 0;
    const std::string walBefore = hadWal ? readBytes(path + "-wal") : "";
    auto r = runCli(QStringList{"run", "fourier-head", "--db", d} + kTiny);
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains(message) && r.err.contains(d), qPrintable(r.err));
    QVERIFY2(readBytes(path) == before, "the file was modified");
    auto list = runCli({"runs", "--db", d, "list"});
    if (kind != "locked") QCOMPARE(list.exitCode, 3);  // reading a locked store still works
    QVERIFY2(readBytes(path) == before, "the file was modified by runs list");
    if (hadWal)
      QVERIFY2(fs::exists(path + "-wal") && readBytes(path + "-wal") == walBefore,
               "the -wal was modified");
    if (!hadWal && kind != "locked")
      QVERIFY2(!fs::exists(path + "-wal"), "a -wal was left beside a refused store");
    if (holder) {
      sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
      sqlite3_close(holder);
    }
  }

  void readOnlyDatabaseExitsThree() {
    const QString d = db("readonly.db");
    QCOMPARE(runCli(QStringList{"run", "fourier-head", "--db", d} + kTiny).exitCode, 0);
    const std::string path = d.toStdString();
    {
      sqlite3* h = nullptr;
      sqlite3_open(path.c_str(), &h);
      sqlite3_exec(h, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE", nullptr,
                   nullptr, nullptr);
      sqlite3_close(h);
    }
    fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    fs::permissions(m_dir.path().toStdString(), fs::perms::all);  // others may enter the folder
    const std::string before = readBytes(path);
    const auto r = runCliBoundByPermissions(QStringList{"run", "fourier-head", "--db", d} + kTiny);
    if (!r) QSKIP("uid 65534 cannot run the CLI from this checkout's location");
    QCOMPARE(r->exitCode, 3);
    QVERIFY2(r->err.contains("read-only") && r->err.contains(d), qPrintable(r->err));
    QVERIFY(readBytes(path) == before);
  }

  // A run whose recorded checkpoints lost their files cannot resume: that is the store's state,
  // not a wrong argument, so the exit code is 3 (it was 2), and nothing changes.
  void aResumeWithoutItsCheckpointFilesIsAStoreError() {
    const QString d = db("no-checkpoint-files.db");
    const std::string path = d.toStdString();
    QCOMPARE(
        runCli(QStringList{"run", "fourier-head", "--db", d, "--set", "checkpoint_every=1"} + kTiny)
            .exitCode,
        0);
    QVERIFY(queryInt(path, "SELECT count(*) FROM artifacts") >= 1);
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    sqlite3_exec(db, "UPDATE runs SET status = 'interrupted'", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    fs::remove_all(path + ".files");
    auto r = runCli({"run", "--db", d, "--resume", "1"});
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains("store error: run 1 has no usable checkpoint (missing: "),
             qPrintable(r.err));
    QCOMPARE(queryInt(path, "SELECT count(*) FROM runs WHERE status = 'interrupted'"), int64_t(1));
    // Without its folder of files, as a store copied alone into another folder is: the folder
    // to copy beside it is named.
    QVERIFY2(r.err.contains("This store has no folder of files beside it (" + d +
                            ".files): a store copied or moved without it has no checkpoints"),
             qPrintable(r.err));
  }

  void killNineThenResume() {
    const QString d = db("kill.db");
    const std::string path = d.toStdString();
    // ~1250 steps an epoch, evaluated and checkpointed every epoch, 12 epochs: a few seconds.
    QProcess p;
    p.start(cliPath(), {"run", "fourier-head", "--db", d, "--device", "cpu", "--set",
                        "samples=50000", "--set", "epochs=12", "--set", "eval_every=1", "--set",
                        "checkpoint_every=1", "--set", "snapshot_inputs=2"});
    QVERIFY(p.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(
        fs::exists(path) && queryInt(path, "SELECT count(*) FROM artifacts") >= 1, 60000);
    QTest::qWait(300);
    ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
    QVERIFY(p.waitForFinished(10000));
    QCOMPARE(p.exitStatus(), QProcess::CrashExit);

    // Reopened: intact, the run interrupted, its metrics up to the last batch kept.
    auto list = runCli({"runs", "--db", d, "list", "--json"});
    QCOMPARE(list.exitCode, 0);
    auto run = nlohmann::json::parse(list.out.toStdString())[0];
    QCOMPARE(run["status"].get<std::string>(), std::string("interrupted"));
    QCOMPARE(
        queryInt(path, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check = 'ok'"),
        int64_t(1));
    const int64_t evaluatedBefore =
        queryInt(path, "SELECT count FROM series WHERE key = 'test/kl'");
    QVERIFY(evaluatedBefore >= 1);
    QVERIFY(evaluatedBefore < 12);

    // Named and tagged as it resumes: the name had been dropped without a word, the tag taken.
    auto resumed = runCli({"run", "--db", d, "--resume", "1", "--json", "--name",
                           "resumed after the kill", "--tag", "killed"},
                          180000);
    QCOMPARE(resumed.exitCode, 0);
    QVERIFY(resumed.err.contains("resuming run 1 from its checkpoint at step"));
    QCOMPARE(queryText(path, "SELECT name FROM runs WHERE id = 1"),
             std::string("resumed after the kill"));
    QCOMPARE(queryText(path, "SELECT group_concat(tag) FROM tags WHERE run_id = 1"),
             std::string("killed"));
    // Its time is said as this session's and in all (it said the session's alone).
    const auto ended = QRegularExpression(
                           "run 1: fourier-head finished in (\\d+:\\d\\d) on cpu \\(resumed at "
                           "step (\\d+); (\\d+:\\d\\d) in all\\)")
                           .match(resumed.err);
    QVERIFY2(ended.hasMatch(), qPrintable(resumed.err));
    QVERIFY(ended.captured(2).toLongLong() > 0);
    auto summary = lastJsonLine(resumed.out);
    QCOMPARE(summary["run_id"].get<int>(), 1);
    QCOMPARE(summary["status"].get<std::string>(), std::string("finished"));
    // The JSON says it too: "seconds" alone read as the whole run's time to a script.
    QCOMPARE(summary["resumed_at_step"].get<int64_t>(), ended.captured(2).toLongLong());
    QVERIFY(summary["seconds_in_all"].get<double>() > summary["seconds"].get<double>());
    // One point per epoch and evaluation, no duplicate or missing step.
    QCOMPARE(queryInt(path, "SELECT count FROM series WHERE key = 'train/loss'"), int64_t(12));
    QCOMPARE(queryInt(path,
                      "SELECT count(*) FROM metrics m JOIN series s ON s.id = m.series_id WHERE "
                      "s.key = 'train/loss'"),
             int64_t(12));
    QCOMPARE(queryInt(path,
                      "SELECT count(DISTINCT step) FROM metrics m JOIN series s ON s.id = "
                      "m.series_id WHERE s.key = 'test/kl'"),
             int64_t(12));
    // Wall times keep counting up across the interruption (they restarted at 0 on resume).
    QCOMPARE(queryInt(path,
                      "SELECT count(*) FROM metrics a JOIN metrics b ON a.series_id = b.series_id "
                      "AND b.step > a.step AND b.wall < a.wall"),
             int64_t(0));
    auto shown =
        nlohmann::json::parse(runCli({"runs", "--db", d, "show", "1", "--json"}).out.toStdString());
    QCOMPARE(shown["status"].get<std::string>(), std::string("finished"));
    QCOMPARE(shown["last_step"], shown["total_steps"]);
    // A finished run does not resume.
    auto again = runCli({"run", "--db", d, "--resume", "1"});
    QCOMPARE(again.exitCode, 2);
    QVERIFY(again.err.contains("only interrupted, cancelled or failed runs resume"));
  }

  // A checkpoint onto a full disk used to abort the CLI (exit 134, step-N.pt.partial left,
  // the run later `interrupted`). The checkpoint file is made to land on /dev/full, a device
  // that is always full, once the run is under way and before its first checkpoint.
  void aCheckpointOntoAFullDiskExitsThreeWithTheRunFailed() {
    const QString d = db("full.db");
    const std::string path = d.toStdString();
    // 2500 steps an epoch, evaluated every epoch, the first checkpoint after 4 (step 10000).
    QProcess p;
    p.start(cliPath(),
            {"run", "fourier-head", "--db", d, "--device", "cpu", "--set", "samples=100000",
             "--set", "epochs=6", "--set", "eval_every=1", "--set", "checkpoint_every=4", "--set",
             "checkpoint_seconds=3600", "--set", "snapshot_inputs=2"});
    QVERIFY(p.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(
        fs::exists(path) &&
            queryInt(path, "SELECT count(*) FROM runs WHERE status = 'running'") == 1,
        60000);
    const std::string folder = fl::store::RunStore::artifactFolderOf(path, 1);
    fs::create_directories(folder);
    fs::create_symlink("/dev/full", folder + "/step-10000.pt.partial");
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(p.exitCode(), 3);
    const QString reason =
        "cannot write " + QString::fromStdString(folder) + "/step-10000.pt: disk full";
    QVERIFY2(err.contains("run failed: " + reason), qPrintable(err));
    QVERIFY2(!err.contains("finished"), qPrintable(err));
    QVERIFY(!fs::exists(fs::symlink_status(folder + "/step-10000.pt.partial")));
    auto shown =
        nlohmann::json::parse(runCli({"runs", "--db", d, "show", "1", "--json"}).out.toStdString());
    QCOMPARE(shown["status"].get<std::string>(), std::string("failed"));
    QVERIFY2(QString::fromStdString(shown["message"].get<std::string>()).contains(reason),
             shown["message"].get<std::string>().c_str());
  }

  // A checkpoint folder that cannot be made (here the store's file folder is a file; elsewhere
  // a folder this user may not write) failed the run with exit 1 and the library's words
  // ("filesystem error: cannot create directories: Not a directory"): a file error, exit 3.
  void aCheckpointFolderThatCannotBeMadeExitsThree() {
    const QString d = db("no-folder.db");
    QFile blocker(d + ".files");
    QVERIFY(blocker.open(QIODevice::WriteOnly));
    blocker.close();
    auto r = runCli({"run", "fourier-head", "--db", d, "--device", "cpu", "--set", "samples=200",
                     "--set", "epochs=2", "--set", "checkpoint_every=1"});
    QCOMPARE(r.exitCode, 3);
    const QString reason =
        "cannot write " + d + ".files/run-1: its folder " + d + ".files is not a folder";
    QVERIFY2(r.err.contains("run failed: " + reason), qPrintable(r.err));
  }

  // `runs export --out FULL/e.csv` used to exit 0 and print `wrote` over a truncated file;
  // JSON left a truncated file; --out onto the full device said both and made a
  // .snapshots.csv beside it. Now: nothing claimed, nothing left, exit 3 with the reason.
  void anExportThatCannotBeWrittenIsNeverClaimed() {
    const QString d = db("export-fail.db");
    QCOMPARE(runCli(QStringList{"run", "fourier-head", "--db", d, "--set", "eval_every=1", "--set",
                                "snapshot_inputs=16"} +
                    kTiny)
                 .exitCode,
             0);
    for (const char* format : {"csv", "json"}) {
      auto full =
          runCli({"runs", "--db", d, "export", "1", "--format", format, "--out", "/dev/full"});
      QCOMPARE(full.exitCode, 3);
      QVERIFY2(full.err.contains("cannot write /dev/full: disk full"), qPrintable(full.err));
      QVERIFY2(!full.err.contains("wrote"), qPrintable(full.err));
    }
    QVERIFY(!fs::exists("/dev/full.snapshots.csv"));

    QTemporaryDir out;
    auto complete = runCli({"runs", "--db", d, "export", "1", "--format", "json", "--out",
                            out.filePath("whole.json")});
    QCOMPARE(complete.exitCode, 0);
    const auto bytes = static_cast<rlim_t>(QFileInfo(out.filePath("whole.json")).size());
    QVERIFY(bytes > 160 * 1024);  // so that half of it still holds the store's 32 KiB -shm file
    for (const char* name : {"e.json", "e.csv"}) {
      const QString target = out.filePath(name);
      auto r = runCliWithFileSizeLimit(
          {"runs", "--db", d, "export", "1", "--format",
           QString(name).endsWith("json") ? "json" : "csv", "--out", target},
          bytes / 2);
      QCOMPARE(r.exitCode, 3);
      // The file that failed is named: for CSV that is the snapshots file beside it (written
      // before the metrics file is renamed into place, the larger of the two).
      const QString failed =
          QString(name).endsWith("json") ? target : out.filePath("e.snapshots.csv");
      QVERIFY2(r.err.contains("cannot write " + failed + ": the file is too large"),
               qPrintable(r.err));
      QVERIFY2(!r.err.contains("wrote"), qPrintable(r.err));
    }
    QCOMPARE(filesIn(out.path()), QStringList{"whole.json"});  // no partial file, no snapshots

    // A missing folder used to be only "cannot write PATH".
    auto missing =
        runCli({"runs", "--db", d, "export", "1", "--out", out.filePath("nowhere/e.csv")});
    QCOMPARE(missing.exitCode, 3);
    QVERIFY2(missing.err.contains("its folder " + out.filePath("nowhere") + " does not exist"),
             qPrintable(missing.err));
  }

  // `run --db /nonexistent/dir/x.db` made the folders and trained into a store no one would
  // look in, exit 0. A store given by path is made only in a folder that exists: refused, exit 2,
  // naming the folder, nothing created; for `sweep run` as for `run`.
  void aNewStoreIsNotMadeInAFolderThatDoesNotExist() {
    const QString missing = db("typo/dir/x.db");
    for (const QStringList& args :
         {QStringList{"run", "fourier-head"} + kTiny,
          QStringList{"sweep", "run", "fourier-head", "--grid", "head=linear,fourier"} + kTiny}) {
      const auto r = runCli(args + QStringList{"--db", missing});
      QVERIFY2(r.exitCode == 2, qPrintable(args.join(' ') + ": " + r.err));
      QVERIFY2(
          r.err.contains("--db " + missing + ": its folder " + db("typo/dir") + " does not exist"),
          qPrintable(r.err));
      QVERIFY(!fs::exists(db("typo").toStdString()));
    }
  }

  // A store named through a symbolic link is its target: SQLite writes the -wal beside the
  // target, and the store's own checks had looked for it beside the link, read the store as
  // truncated ("4096 bytes, its header says 118784") and refused every write of the run, its
  // metrics and checkpoints lost. A link to a store not made yet, and one from another folder.
  void aStoreNamedThroughALinkIsItsTarget() {
    fs::create_directories(db("linked/real").toStdString());
    fs::create_directories(db("linked/elsewhere").toStdString());
    const QString target = db("linked/real/runs.db");
    const QString nearLink = db("linked/real/near.db");
    const QString farLink = db("linked/elsewhere/far.db");
    fs::create_symlink("runs.db", nearLink.toStdString());
    fs::create_symlink("../real/near.db", farLink.toStdString());  // a link to the link
    int runs = 0;
    for (const QString& link : {nearLink, farLink, farLink, nearLink}) {
      const auto r = runCli(QStringList{"run", "fourier-head", "--db", link} + kTiny);
      QVERIFY2(r.exitCode == 0, qPrintable(link + ": " + r.err));
      ++runs;
      QCOMPARE(
          queryInt(target.toStdString(), "SELECT count(*) FROM runs WHERE status = 'finished'"),
          int64_t(runs));
    }
    QVERIFY(fs::is_symlink(nearLink.toStdString()) && fs::is_symlink(farLink.toStdString()));
    QCOMPARE(queryInt(target.toStdString(), "SELECT count(DISTINCT run_id) FROM artifacts"),
             int64_t(runs));
    QCOMPARE(queryInt(target.toStdString(),
                      "SELECT count(DISTINCT s.run_id) FROM series s WHERE s.key = 'test/kl' AND "
                      "s.count > 0"),
             int64_t(runs));
    // Their checkpoints beside the target, where a copy of the store with its folder finds them.
    QVERIFY(fs::is_directory(db("linked/real/runs.db.files").toStdString()));
    QVERIFY(!fs::exists(db("linked/elsewhere/far.db.files").toStdString()));
    const auto shown = runCli({"runs", "show", "1", "--db", farLink});
    QVERIFY2(shown.exitCode == 0 && shown.out.contains("finished"), qPrintable(shown.err));
  }

  // A pipe (or a device: /dev/null) given as the store: SQLite's open had answered "disk I/O
  // error" and left a -journal beside it, for a command asked only to read.
  void aPipeGivenAsTheStoreIsRefusedAndLeftAsItIs() {
    const QString pipe = db("pipe.db");
    QCOMPARE(::mkfifo(pipe.toLocal8Bit().constData(), 0600), 0);
    for (const QStringList& args :
         {QStringList{"runs", "list"}, QStringList{"runs", "show", "1"},
          QStringList{"sweep", "list"}, QStringList{"run", "fourier-head"} + kTiny}) {
      const auto r = runCli(args + QStringList{"--db", pipe});
      QVERIFY2(r.exitCode == 3, qPrintable(args.join(' ') + ": " + r.err));
      QVERIFY2(r.err.contains(pipe + ": is not a regular file (a device, a pipe or a socket), not "
                                     "a run store; left as it is"),
               qPrintable(r.err));
    }
    for (const char* suffix : {"-journal", "-wal", "-shm"})
      QVERIFY2(!QFileInfo::exists(pipe + suffix), suffix);
    // A loop of links is said as one: SQLite's "unable to open database file" had said nothing.
    QVERIFY(QFile::link(db("loop-b.db"), db("loop-a.db")));
    QVERIFY(QFile::link(db("loop-a.db"), db("loop-b.db")));
    for (const QStringList& args :
         {QStringList{"runs", "list"}, QStringList{"run", "fourier-head"} + kTiny}) {
      const auto r = runCli(args + QStringList{"--db", db("loop-a.db")});
      QVERIFY2(r.exitCode == 3, qPrintable(args.join(' ') + ": " + r.err));
      QVERIFY2(r.err.contains("is a loop of symbolic links, not a run store"), qPrintable(r.err));
    }
  }

  // `runs list --db nodir/x.db` used to make the folder and an empty store, exit 0; a
  // zero-byte file was adopted and rewritten. A command that reads creates nothing.
  void readCommandsCreateNothing() {
    const QString missing = db("nodir/x.db");
    const QList<QStringList> commands{
        {"list"},          {"show", "1"},      {"export", "1"}, {"compare", "1", "2"},
        {"tag", "1", "t"}, {"note", "1", "n"}, {"delete", "1"}};
    for (const auto& command : commands) {
      auto r = runCli(QStringList{"runs", "--db", missing} + command);
      QCOMPARE(r.exitCode, 3);
      QVERIFY2(r.err.contains(missing + ": no run store at this path"), qPrintable(r.err));
    }
    auto resume = runCli({"run", "--resume", "1", "--db", missing});
    QCOMPARE(resume.exitCode, 3);
    QVERIFY(!fs::exists(db("nodir").toStdString()));

    const QString empty = db("zero.db");
    {
      QFile f(empty);
      QVERIFY(f.open(QIODevice::WriteOnly));
    }
    auto r = runCli({"runs", "--db", empty, "list"});
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains("is an empty file, not a run store"), qPrintable(r.err));
    QCOMPARE(QFileInfo(empty).size(), qint64(0));
    QVERIFY(!QFileInfo::exists(empty + "-wal") && !QFileInfo::exists(empty + "-shm"));
  }

  // With the defaults the first checkpoint used to come at epoch 50 (every 5 evaluations of 10
  // epochs): 15 of 15 runs killed before it could not resume. A run killed at once resumes.
  void aRunKilledBeforeItsFirstCheckpointResumes() {
    const QString d = db("early-kill.db");
    const std::string path = d.toStdString();
    QProcess p;
    p.start(cliPath(), {"run", "fourier-head", "--db", d, "--device", "cpu", "--set", "epochs=60"});
    QVERIFY(p.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(
        fs::exists(path) &&
            queryInt(path, "SELECT count(*) FROM runs WHERE status = 'running'") == 1,
        60000);
    ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
    QVERIFY(p.waitForFinished(10000));

    auto resumed = runCli({"run", "--db", d, "--resume", "1", "--json"}, 240000);
    QCOMPARE(resumed.exitCode, 0);
    QVERIFY2(resumed.err.contains("resuming run 1 from"), qPrintable(resumed.err));
    QCOMPARE(lastJsonLine(resumed.out)["status"].get<std::string>(), std::string("finished"));
    // One loss point per epoch, one evaluation per 10 epochs: nothing twice, nothing missing.
    QCOMPARE(queryInt(path,
                      "SELECT count(*) FROM metrics m JOIN series s ON s.id = m.series_id WHERE "
                      "s.key = 'train/loss'"),
             int64_t(60));
    QCOMPARE(queryInt(path,
                      "SELECT count(*) FROM metrics m JOIN series s ON s.id = m.series_id WHERE "
                      "s.key = 'test/kl'"),
             int64_t(6));
  }

  // A folder the user cannot write in used to say "attempt to write a readonly database".
  void aReadOnlyFolderIsNamed() {
    if (geteuid() != 0) QSKIP("needs root to run the CLI as another user");
    const QString folder = db("ro-folder");
    QVERIFY(QDir().mkpath(folder));
    const QString d = folder + "/runs.db";
    QCOMPARE(runCli(QStringList{"run", "fourier-head", "--db", d} + kTiny).exitCode, 0);
    fs::permissions(
        d.toStdString(),
        fs::perms::all & ~(fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec));
    fs::permissions(folder.toStdString(), fs::perms::owner_all | fs::perms::group_read |
                                              fs::perms::group_exec | fs::perms::others_read |
                                              fs::perms::others_exec);
    fs::permissions(m_dir.path().toStdString(), fs::perms::all);
    const auto r = runCliBoundByPermissions(QStringList{"run", "fourier-head", "--db", d} + kTiny);
    if (!r) QSKIP("uid 65534 cannot run the CLI from this checkout's location");
    QCOMPARE(r->exitCode, 3);
    QVERIFY2(r->err.contains("its folder " + folder + " is not writable for this user"),
             qPrintable(r->err));
  }

  // A store this user may not write (a colleague's, a cluster's results copied as they were)
  // used to be refused by every command, reading ones included: they now read it as it is, say
  // so, and leave no file behind; what writes is still refused, naming the folder.
  void aStoreThisUserCannotWriteIsReadNotRefused() {
    const QString folder = db("colleague");
    QVERIFY(QDir().mkpath(folder));
    const QString d = folder + "/runs.db";
    QCOMPARE(
        runCli(QStringList{"run", "fourier-head", "--db", d, "--name", "theirs"} + kTiny).exitCode,
        0);
    QCOMPARE(
        runCli(QStringList{"sweep", "run", "fourier-head", "--seeds", "1,2", "--db", d} + kTiny)
            .exitCode,
        0);
    makeUnwritable(folder, d, m_dir.path());
    const QStringList before = filesIn(folder);
    const std::string bytes = readBytes(d.toStdString());

    const auto list = runCliBoundByPermissions({"runs", "list", "--json", "--db", d});
    if (!list) QSKIP("uid 65534 cannot run the CLI from this checkout's location");
    QCOMPARE(list->exitCode, 0);
    const auto runs = nlohmann::json::parse(list->out.toStdString());
    QCOMPARE(runs.size(), size_t(3));
    QCOMPARE(runs[0]["name"].get<std::string>(), std::string("theirs"));
    QVERIFY2(list->err.contains(d + " is read-only for this user: read as it is"),
             qPrintable(list->err));
    for (const QStringList& reading :
         {QStringList{"runs", "show", "1"}, QStringList{"runs", "compare", "2", "3"},
          QStringList{"runs", "export", "1", "--format", "json"}, QStringList{"sweep", "list"},
          QStringList{"sweep", "show", "1"}, QStringList{"sweep", "table", "1"}}) {
      const auto r = runCliBoundByPermissions(reading + QStringList{"--db", d});
      QVERIFY(r);
      QVERIFY2(r->exitCode == 0, qPrintable(reading.join(' ') + ": " + r->err));
      QVERIFY2(!r->out.isEmpty(), qPrintable(reading.join(' ')));
    }
    const auto tag = runCliBoundByPermissions({"runs", "tag", "1", "mine", "--db", d});
    QCOMPARE(tag->exitCode, 3);
    QVERIFY2(tag->err.contains("is not writable for this user"), qPrintable(tag->err));
    QCOMPARE(filesIn(folder), before);
    QVERIFY(readBytes(d.toStdString()) == bytes);
  }

  // A colleague reading a store in a shared folder (everyone may write it, the store is the
  // owner's 0644) created its -shm and -wal, theirs, 0644: the owner could then no longer
  // write their own store. A reader now leaves nothing behind.
  void aColleagueReadingAStoreInASharedFolderLeavesNothingBehind() {
    const QString folder = db("shared");
    QVERIFY(QDir().mkpath(folder));
    const QString d = folder + "/runs.db";
    QCOMPARE(runCli(QStringList{"run", "fourier-head", "--db", d} + kTiny).exitCode, 0);
    const auto readable = fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                          fs::perms::others_read;
    fs::permissions(d.toStdString(), readable);
    fs::permissions(folder.toStdString(), fs::perms::all);
    fs::permissions(m_dir.path().toStdString(), fs::perms::all);
    const QStringList before = filesIn(folder);
    QVERIFY2(!before.contains("runs.db-shm") && !before.contains("runs.db-wal"),
             qPrintable(before.join(' ')));
    for (const QStringList& reading :
         {QStringList{"runs", "list"}, QStringList{"runs", "show", "1"},
          QStringList{"sweep", "list"}}) {
      const auto r = runCliBoundByPermissions(reading + QStringList{"--db", d});
      if (!r) QSKIP("uid 65534 cannot run the CLI from this checkout's location");
      QVERIFY2(r->exitCode == 0, qPrintable(reading.join(' ') + ": " + r->err));
      QCOMPARE(filesIn(folder), before);
    }
    QCOMPARE(runCli({"runs", "tag", "1", "mine", "--db", d}).exitCode, 0);
  }

  // Writes still in a store's -wal cannot be read without creating its -shm beside it: in a
  // folder this user cannot write, the store is refused, saying so, rather than read without
  // its last writes.
  void aStoreWithUnmergedWritesInAFolderNotWritableIsRefused() {
    const QString made = db("wal-source");
    QVERIFY(QDir().mkpath(made));
    const QString source = made + "/runs.db";
    QCOMPARE(runCli(QStringList{"run", "fourier-head", "--db", source} + kTiny).exitCode, 0);
    const QString folder = db("wal-copy");
    QVERIFY(QDir().mkpath(folder));
    const QString d = folder + "/runs.db";
    {
      // A writer that has not merged its WAL yet, copied as it is (without its -shm).
      sqlite3* h = nullptr;
      QCOMPARE(sqlite3_open(source.toStdString().c_str(), &h), SQLITE_OK);
      sqlite3_exec(h, "PRAGMA wal_autocheckpoint = 0; UPDATE runs SET name = 'renamed'", nullptr,
                   nullptr, nullptr);
      QVERIFY(QFile::copy(source, d));
      QVERIFY(QFile::copy(source + "-wal", d + "-wal"));
      sqlite3_close(h);
    }
    QVERIFY(QFileInfo(d + "-wal").size() > 0);
    makeUnwritable(folder, d, m_dir.path());
    const auto r = runCliBoundByPermissions({"runs", "list", "--db", d});
    if (!r) QSKIP("uid 65534 cannot run the CLI from this checkout's location");
    QCOMPARE(r->exitCode, 3);
    QVERIFY2(r->err.contains("its last writes are still in " + d + "-wal") &&
                 r->err.contains("not writable for this user"),
             qPrintable(r->err));
  }

  // On a terminal `runs delete` asks first, as the window's Delete… does (nothing brings a
  // deleted run back): "n" deletes nothing, "y" deletes. Without a terminal (a script, every
  // other test here) or with --yes it deletes at once. util-linux's `script` gives it a terminal.
  void runsDeleteAsksOnATerminal() {
    if (QStandardPaths::findExecutable("script").isEmpty())
      QSKIP("needs util-linux's script to give the command a terminal");
    const QString d = db("ask.db");
    for (int i = 0; i < 2; ++i)
      QCOMPARE(runCli({"run", "fourier-head", "--db", d, "--set", "epochs=1", "--set",
                       "samples=200", "--device", "cpu"})
                   .exitCode,
               0);
    auto onTerminal = [&](const QString& answer) {
      QProcess p;
      p.start("script",
              {"-qec", QString("'%1' runs delete 1 --db '%2'").arg(cliPath(), d), "/dev/null"});
      if (!p.waitForStarted()) return QString("could not start script");
      p.write(answer.toUtf8());
      p.closeWriteChannel();
      p.waitForFinished(60000);
      return QString::fromUtf8(p.readAll());
    };
    const QString declined = onTerminal("n\n");
    QVERIFY2(
        declined.contains("delete 1 run(s) (#1 ") && declined.contains("[y/N] nothing deleted"),
        qPrintable(declined));
    QCOMPARE(queryInt(d.toStdString(), "SELECT count(*) FROM runs"), int64_t(2));
    const QString accepted = onTerminal("y\n");
    QVERIFY2(accepted.contains("deleted 1 run(s)"), qPrintable(accepted));
    QCOMPARE(queryInt(d.toStdString(), "SELECT count(*) FROM runs"), int64_t(1));
    // No terminal: at once.
    QCOMPARE(runCli({"runs", "delete", "2", "--db", d}).exitCode, 0);
    QCOMPARE(queryInt(d.toStdString(), "SELECT count(*) FROM runs"), int64_t(0));
  }

  // Mistakes in `runs` used to pass without a word: a run given twice was exported twice, a tag
  // a run lacks was "removed", an unknown experiment listed nothing. Archived runs can be
  // listed on their own, are marked where listed, and come back.
  void runsCommandsRefuseMistakesAndArchivingIsReversible() {
    const QString d = db("runs-mistakes.db");
    for (int i = 0; i < 2; ++i)
      QCOMPARE(runCli(QStringList{"run", "fourier-head", "--db", d, "--tag", "x"} + kTiny).exitCode,
               0);
    auto twice = runCli({"runs", "export", "1", "1", "--db", d});
    QCOMPARE(twice.exitCode, 2);
    QVERIFY2(twice.err.contains("error: run 1 is given twice"), qPrintable(twice.err));
    QCOMPARE(runCli({"runs", "compare", "2", "2", "--db", d}).exitCode, 2);

    auto untag = runCli({"runs", "untag", "1", "x", "nothere", "--db", d});
    QCOMPARE(untag.exitCode, 2);
    QVERIFY2(untag.err.contains("run 1 has no tag 'nothere' (its tags: x); nothing was removed"),
             qPrintable(untag.err));
    QCOMPARE(queryInt(d.toStdString(), "SELECT count(*) FROM tags WHERE run_id = 1"), int64_t(1));

    auto unknown = runCli({"runs", "list", "--experiment", "nope", "--db", d});
    QCOMPARE(unknown.exitCode, 2);
    QVERIFY2(unknown.err.contains("no experiment 'nope' (experiments: ") &&
                 unknown.err.contains("fourier-head"),
             qPrintable(unknown.err));
    auto none = runCli({"runs", "list", "--experiment", "fope", "--json", "--db", d});
    QCOMPARE(none.exitCode, 0);  // a known experiment with no runs here lists nothing
    QCOMPARE(nlohmann::json::parse(none.out.toStdString()).size(), size_t(0));

    const auto archiving = runCli({"runs", "archive", "1", "--db", d});
    QCOMPARE(archiving.exitCode, 0);
    QVERIFY2(archiving.err.contains("archived: 1 (`runs list` leaves them out; `runs unarchive 1` "
                                    "brings them back)"),
             qPrintable(archiving.err));
    auto listed =
        nlohmann::json::parse(runCli({"runs", "list", "--json", "--db", d}).out.toStdString());
    QCOMPARE(listed.size(), size_t(1));
    QCOMPARE(listed[0]["archived"].get<bool>(), false);
    auto archived = nlohmann::json::parse(
        runCli({"runs", "list", "--archived", "--json", "--db", d}).out.toStdString());
    QCOMPARE(archived.size(), size_t(1));
    QCOMPARE(archived[0]["id"].get<int>(), 1);
    QCOMPARE(archived[0]["archived"].get<bool>(), true);
    QVERIFY(runCli({"runs", "list", "--all", "--db", d}).out.contains(" (archived)"));
    QVERIFY(runCli({"runs", "show", "1", "--db", d}).out.contains("archived  yes"));
    // The export says when and how far a run went, as `runs show --json` does; `runs show`
    // reads its versions as words, not as JSON.
    const auto exported = nlohmann::json::parse(
        runCli({"runs", "export", "1", "--format", "json", "--db", d}).out.toStdString());
    const auto& run = exported["runs"][0];
    for (const char* key : {"created", "started", "finished", "last_step", "total_steps", "message",
                            "archived", "app_version"})
      QVERIFY2(run.contains(key), key);
    QCOMPARE(run["last_step"].get<int64_t>(), run["total_steps"].get<int64_t>());
    QVERIFY(run["finished"].get<double>() >= run["started"].get<double>());
    const QString shown = runCli({"runs", "show", "1", "--db", d}).out;
    const QString versions = shown.section("versions  ", 1).section('\n', 0, 0);
    QVERIFY2(versions.startsWith("fourierlab ") && !versions.contains('{'), qPrintable(versions));
    QVERIFY(runCli({"runs", "archive", "1", "--db", d}).err.contains("run 1 is already archived"));
    QCOMPARE(runCli({"runs", "list", "--archived", "--all", "--db", d}).exitCode, 2);
    const auto unarchiving = runCli({"runs", "unarchive", "1", "--db", d});
    QCOMPARE(unarchiving.exitCode, 0);
    QVERIFY2(unarchiving.err.contains("unarchived: 1 (`runs list` lists them again)"),
             qPrintable(unarchiving.err));
    QVERIFY(runCli({"runs", "unarchive", "1", "--db", d}).err.contains("run 1 is not archived"));
    QCOMPARE(nlohmann::json::parse(runCli({"runs", "list", "--json", "--db", d}).out.toStdString())
                 .size(),
             size_t(2));
  }

  void twoProcessesWriteIntoOneFreshDatabase() {
    const QString d = db("shared.db");
    QProcess a, b;
    const QStringList args = QStringList{"run",   "fourier-head", "--db",     d,
                                         "--set", "samples=2000", "--set",    "epochs=4",
                                         "--set", "eval_every=1", "--device", "cpu"};
    a.start(cliPath(), args);
    b.start(cliPath(), args);
    QVERIFY(a.waitForFinished(120000) && b.waitForFinished(120000));
    QCOMPARE(a.exitCode(), 0);
    QCOMPARE(b.exitCode(), 0);
    const std::string path = d.toStdString();
    QCOMPARE(queryInt(path, "SELECT count(*) FROM runs WHERE status = 'finished'"), int64_t(2));
    QCOMPARE(queryInt(path, "SELECT min(count) FROM series WHERE key = 'test/kl'"), int64_t(4));
    QCOMPARE(queryInt(path, "SELECT max(count) FROM series WHERE key = 'test/kl'"), int64_t(4));
  }

  // A resumed run's keep policy used to know only the checkpoint it continued from: the best
  // kept before the interruption stayed in the store and its folder for good, even once newer
  // checkpoints scored better. It is weighed with the rest: what stays is the last and the best.
  void aResumedRunDeletesTheCheckpointsItSupersedes() {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    QProcess p;
    p.start(cliPath(), {"run",      "fope",
                        "--set",    "d_model=16",
                        "--set",    "heads=1",
                        "--set",    "layers=1",
                        "--set",    "steps=1200",
                        "--set",    "warmup=0",
                        "--set",    "eval_every=100",
                        "--set",    "checkpoint_every=2",
                        "--set",    "eval_tokens=256",
                        "--device", "cpu",
                        "--db",     db});
    QVERIFY(p.waitForStarted());
    QByteArray err;
    QElapsedTimer timer;
    timer.start();
    // After the checkpoints at steps 200 and 400 (every second evaluation), interrupt.
    while (err.count("eval step") < 5 && timer.elapsed() < 60000 &&
           p.state() == QProcess::Running) {
      p.waitForReadyRead(100);
      err += p.readAllStandardError();
    }
    QVERIFY2(err.count("eval step") >= 5, err.constData());
    ::kill(static_cast<pid_t>(p.processId()), SIGTERM);
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 143);

    auto r = runCli({"run", "--resume", "1", "--db", db});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));

    fl::store::RunStore store(db.toStdString(), /*readOnly=*/true);
    QCOMPARE(fl::toString(store.run(1)->status), std::string("finished"));
    const auto checkpoints = store.checkpoints(1);
    QVERIFY(!checkpoints.empty());
    QCOMPARE(checkpoints.back().step, int64_t(1200));
    std::map<int64_t, double> loss;
    for (const auto& point : store.metric(1, "val/loss")) loss[point.step] = point.value;
    // Every file kept besides the last is there because it scores better than the last.
    for (const auto& c : checkpoints)
      if (c.step != 1200)
        QVERIFY2(loss.at(c.step) < loss.at(1200),
                 qPrintable(QString("step %1 kept, val/loss %2 against %3 at the end")
                                .arg(c.step)
                                .arg(loss.at(c.step))
                                .arg(loss.at(1200))));
    QVERIFY(checkpoints.size() <= 2);
    // The store's folder holds exactly the files it names.
    std::set<std::string> named, onDisk;
    for (const auto& c : checkpoints) named.insert(std::filesystem::path(c.path).filename());
    for (const auto& entry : std::filesystem::recursive_directory_iterator(
             std::filesystem::path(checkpoints.back().path).parent_path()))
      if (entry.path().extension() == ".pt") onDisk.insert(entry.path().filename());
    QVERIFY(named == onDisk);
  }
};

QTEST_GUILESS_MAIN(TestCliStore)
#include "test_cli_store.moc"
