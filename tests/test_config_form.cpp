// Tests widgets/config_form.h: the form is generated from a parameter list, rejects bad
// values with the key named and marks the field, and applies presets.
#include <QtTest>

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>

#include "widgets/config_form.h"
#include "widgets/vertical_scroll_area.h"

using fl::ParamSpec;

class TestConfigForm : public QObject {
  Q_OBJECT

  std::vector<ParamSpec> specs() const {
    return {ParamSpec::integer("epochs", 500, 1, 1000, "passes").inGroup("training"),
            ParamSpec::real("lr", 1e-3, 0.0, 1.0, "learning rate").exclusiveMinimum(),
            ParamSpec::choice("head", "fourier", {"linear", "fourier"}, "head"),
            ParamSpec::flag("learnable", false, "train it")};
  }

 private slots:
  void fieldsFollowTheDeclaredTypes() {
    fl::widgets::ConfigForm form;
    form.setSpecs(specs());
    auto* epochs = qobject_cast<QSpinBox*>(form.field("epochs"));
    QVERIFY(epochs);
    QCOMPARE(epochs->minimum(), 1);
    QCOMPARE(epochs->maximum(), 1000);
    QCOMPARE(epochs->value(), 500);
    QVERIFY(qobject_cast<QLineEdit*>(form.field("lr")));
    auto* head = qobject_cast<QComboBox*>(form.field("head"));
    QCOMPARE(head->count(), 2);
    QVERIFY(qobject_cast<QCheckBox*>(form.field("learnable")));
    QVERIFY(form.field("lr")->toolTip().contains("learning rate"));
    QVERIFY(form.issues().empty());
    QCOMPARE(form.values()["head"].get<std::string>(), std::string("fourier"));
  }

  // A parameter that names a file has a button that picks one (it was a bare text box that
  // said "a string"); another text parameter has none.
  void aFileParameterHasAPicker() {
    fl::widgets::ConfigForm form;
    form.setSpecs({ParamSpec::text("corpus", "", "a text file").namesAFile(),
                   ParamSpec::text("note", "", "free text")});
    QVERIFY(form.findChild<QToolButton*>("corpus_browse"));
    QVERIFY(!form.findChild<QToolButton*>("note_browse"));
    auto* corpus = qobject_cast<QLineEdit*>(form.field("corpus"));
    QVERIFY(corpus);
    QCOMPARE(corpus->placeholderText(), QString("a file's path"));
  }

  // In a scroll area as narrow as a dock can be made: the area asks for the form's whole width,
  // and focusing the field at the right never scrolls the labels out of view.
  void theFormNeverScrollsSideways() {
    QWidget dock;
    auto* layout = new QVBoxLayout(&dock);
    auto* form = new fl::widgets::ConfigForm;
    form->setSpecs(specs());
    auto* scroll = new fl::widgets::VerticalScrollArea(form);
    layout->addWidget(scroll);
    QVERIFY(scroll->minimumSizeHint().width() >= form->minimumSizeHint().width());
    dock.resize(60, 300);  // narrower than the form: the layout keeps it at its minimum
    dock.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dock));
    QVERIFY(dock.width() >= scroll->minimumSizeHint().width());
    form->field("learnable")->setFocus();
    QApplication::processEvents();
    QCOMPARE(scroll->horizontalScrollBar()->value(), 0);
    QCOMPARE(scroll->horizontalScrollBar()->maximum(), 0);  // the form fits: nothing to scroll
  }

  void badValuesAreMarkedAndNamed_data() {
    QTest::addColumn<QString>("text");
    QTest::newRow("not a number") << "fast";
    QTest::newRow("out of range") << "0";
    QTest::newRow("empty") << "";
  }
  void badValuesAreMarkedAndNamed() {
    QFETCH(QString, text);
    fl::widgets::ConfigForm form;
    form.setSpecs(specs());
    QSignalSpy changed(&form, &fl::widgets::ConfigForm::changed);
    auto* lr = qobject_cast<QLineEdit*>(form.field("lr"));
    lr->setText(text);
    QVERIFY(changed.count() >= 1);
    const auto issues = form.issues();
    QCOMPARE(issues.size(), size_t(1));
    QCOMPARE(issues[0].key, std::string("lr"));
    QVERIFY(issues[0].message.find("'lr' must be a number in (0, 1]") != std::string::npos);
    QVERIFY(!lr->styleSheet().isEmpty());
    QVERIFY(lr->toolTip().contains("must be"));
    lr->setText("0.01");
    QVERIFY(form.issues().empty());
    QVERIFY(lr->styleSheet().isEmpty());
  }

  // A problem only the whole config shows (a corpus that is not text, a length too short for
  // another parameter) is marked at its field as a bad value is; the next edit re-marks the form.
  void issuesOfTheWholeConfigAreMarkedAtTheirFields() {
    fl::widgets::ConfigForm form;
    form.setSpecs(specs());
    auto* lr = qobject_cast<QLineEdit*>(form.field("lr"));
    QWidget* epochs = form.field("epochs");
    form.markIssues({{"lr", "corpus-like problem with lr"},
                     {"epochs", "epochs too few for the other settings"},
                     {"", "a problem of the whole config"},
                     {"nonexistent", "ignored"}});
    QVERIFY(!lr->styleSheet().isEmpty());
    QCOMPARE(lr->toolTip(), QString("corpus-like problem with lr"));
    QVERIFY(!epochs->styleSheet().isEmpty());
    QCOMPARE(epochs->toolTip(), QString("epochs too few for the other settings"));
    QVERIFY(form.field("head")->styleSheet().isEmpty());
    // An edit: the form's own checks again, which find nothing wrong.
    qobject_cast<QSpinBox*>(epochs)->setValue(20);
    QVERIFY(lr->styleSheet().isEmpty());
    QVERIFY(epochs->styleSheet().isEmpty());
    QVERIFY(!epochs->toolTip().contains("too few"));
  }

  // QSpinBox dropped the keys it could not take ("1e3" became 13, "-5" became 5), and put its
  // last value back when editing ended on refused text: a run started with 5000 samples while
  // the field showed 50. The text stays as typed, marked, and blocks a run.
  void anIntegerFieldNeverTurnsTypedTextIntoAnotherNumber_data() {
    QTest::addColumn<QString>("text");
    QTest::newRow("e-notation") << "1e3";
    QTest::newRow("negative") << "-5";
    QTest::newRow("fraction") << "12.5";
    QTest::newRow("below the minimum") << "0";
  }
  void anIntegerFieldNeverTurnsTypedTextIntoAnotherNumber() {
    QFETCH(QString, text);
    fl::widgets::ConfigForm form;
    form.setSpecs(specs());
    QSignalSpy changed(&form, &fl::widgets::ConfigForm::changed);
    auto* epochs = qobject_cast<QSpinBox*>(form.field("epochs"));
    auto* edit = epochs->findChild<QLineEdit*>();
    QVERIFY(edit);
    edit->selectAll();
    QTest::keyClicks(epochs, text);
    QCOMPARE(edit->text(), text);             // as typed: no key dropped
    QVERIFY(changed.count() >= text.size());  // each key tells the launcher
    const std::string expected =
        "'epochs' must be an integer in [1, 1000], got '" + text.toStdString() + "'";
    auto refusedNow = [&] {
      const auto issues = form.issues();
      return issues.size() == 1 && issues[0].key == "epochs" && issues[0].message == expected &&
             !form.values().contains("epochs");
    };
    QVERIFY(refusedNow());  // while typing: no run with another number
    QTest::keyClick(epochs, Qt::Key_Return);
    QCOMPARE(edit->text(), text);  // editing ended: the text stays, never 13, 5 or 500
    QVERIFY(refusedNow());
    QVERIFY(!epochs->styleSheet().isEmpty());
    QCOMPARE(epochs->toolTip(), QString::fromStdString(expected));
    edit->selectAll();
    QTest::keyClicks(epochs, "700");
    QCOMPARE(form.values()["epochs"].get<int>(), 700);  // the text on screen, before Return
    QTest::keyClick(epochs, Qt::Key_Return);
    QCOMPARE(epochs->value(), 700);
    QVERIFY(epochs->styleSheet().isEmpty());
    QVERIFY(form.issues().empty());
  }

  // Focus leaving the field keeps refused text as well (QAbstractSpinBox reverted it there too).
  void anIntegerFieldKeepsRefusedTextWhenFocusLeaves() {
    QWidget window;
    auto* layout = new QVBoxLayout(&window);
    auto* form = new fl::widgets::ConfigForm(&window);
    auto* elsewhere = new QLineEdit(&window);
    layout->addWidget(form);
    layout->addWidget(elsewhere);
    form->setSpecs(specs());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QApplication::setActiveWindow(&window);
    auto* epochs = qobject_cast<QSpinBox*>(form->field("epochs"));
    epochs->setFocus();
    QTRY_VERIFY(epochs->hasFocus());
    auto* edit = epochs->findChild<QLineEdit*>();
    edit->selectAll();
    QTest::keyClicks(epochs, "5000");
    elsewhere->setFocus();
    QTRY_VERIFY(elsewhere->hasFocus());
    QCOMPARE(edit->text(), QString("5000"));
    QCOMPARE(form->issues().size(), size_t(1));
    // A preset's value replaces the refused text.
    form->setValues({{"epochs", 20}});
    QCOMPARE(edit->text(), QString("20"));
    QVERIFY(form->issues().empty());
  }

  // Scrolling the form over a field changes nothing unless the field has focus.
  void theWheelChangesOnlyAFocusedField() {
    QWidget window;
    auto* layout = new QVBoxLayout(&window);
    auto* elsewhere = new QLineEdit(&window);  // where the focus is while the form scrolls
    auto* form = new fl::widgets::ConfigForm(&window);
    layout->addWidget(elsewhere);
    layout->addWidget(form);
    form->setSpecs(specs());
    window.resize(400, 400);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QApplication::setActiveWindow(&window);
    elsewhere->setFocus();
    QTRY_VERIFY(elsewhere->hasFocus());
    auto* epochs = qobject_cast<QSpinBox*>(form->field("epochs"));
    auto* head = qobject_cast<QComboBox*>(form->field("head"));
    auto wheel = [](QWidget* w) {
      const QPoint at = w->rect().center();
      QWheelEvent event(at, w->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton,
                        Qt::NoModifier, Qt::NoScrollPhase, false);
      QApplication::sendEvent(w, &event);
    };
    QVERIFY(!epochs->hasFocus());
    wheel(epochs);
    wheel(head);
    QCOMPARE(epochs->value(), 500);
    QCOMPARE(head->currentText(), QString("fourier"));
    QCOMPARE(epochs->focusPolicy(), Qt::StrongFocus);  // a wheel does not give it focus either
    epochs->setFocus();
    QTRY_VERIFY(epochs->hasFocus());
    wheel(epochs);
    QCOMPARE(epochs->value(), 501);
  }

  // Any parameter can hold a list of values: a study's axis, in the CLI's --grid syntax.
  void aParameterCanHoldAListOfValues() {
    fl::widgets::ConfigForm form;
    form.setSpecs(specs());
    QVERIFY(form.axes().empty());
    QVERIFY(form.setList("epochs", "2,4,...,10"));
    QVERIFY(form.isVaried("epochs"));
    QVERIFY(form.field("epochs")->isHidden());
    const auto axes = form.axes();
    QCOMPARE(axes.size(), size_t(1));
    QCOMPARE(axes[0].key, std::string("epochs"));
    QCOMPARE(axes[0].values.size(), size_t(5));
    QCOMPARE(axes[0].values.back().get<int>(), 10);
    QCOMPARE(form.values()["epochs"].get<int>(), 2);  // the config stays valid: the first value
    QVERIFY(form.issues().empty());
    form.setList("head", "linear,nope");
    QCOMPARE(form.axes().size(), size_t(1));  // the bad list is left out, and said:
    const auto issues = form.issues();
    QCOMPARE(issues.size(), size_t(1));
    QCOMPARE(issues[0].key, std::string("head"));
    QVERIFY(issues[0].message.find("nope") != std::string::npos);
    QVERIFY(!form.listField("head")->styleSheet().isEmpty());
    QVERIFY(form.setList("head", ""));  // an empty list: back to one value
    QVERIFY(!form.isVaried("head"));
    QVERIFY(!form.setList("no_such", "1,2"));
  }

  // A parameter the config does not use is greyed with its label and keeps its value; a varied
  // choice uses it when any of its values does.
  void aParameterTheConfigDoesNotUseIsGreyed() {
    auto conditional = specs();
    conditional.push_back(
        ParamSpec::integer("frequencies", 12, 1, 64, "N").usedOnlyWhen("head", {"fourier"}));
    fl::widgets::ConfigForm form;
    form.setSpecs(conditional);
    QVERIFY(form.field("frequencies")->isEnabled());
    QVERIFY(form.field("frequencies")->toolTip().contains("used only when head is fourier"));
    qobject_cast<QSpinBox*>(form.field("frequencies"))->setValue(20);
    form.setValues({{"head", "linear"}});
    QVERIFY(!form.field("frequencies")->isEnabled());
    QVERIFY(!form.label("frequencies")->isEnabled());
    QVERIFY(form.field("epochs")->isEnabled());
    QCOMPARE(form.values()["frequencies"].get<int>(), 20);  // kept for when it is used again
    QVERIFY(form.setList("head", "linear,fourier"));
    QVERIFY(form.field("frequencies")->isEnabled());
    QVERIFY(form.setList("head", "linear"));
    QVERIFY(!form.field("frequencies")->isEnabled());
    QVERIFY(form.setList("head", ""));
    qobject_cast<QComboBox*>(form.field("head"))->setCurrentText("fourier");
    QVERIFY(form.field("frequencies")->isEnabled());
    QVERIFY(form.label("frequencies")->isEnabled());
    // A list held by a parameter the config stops using is no axis (and no issue) until it is
    // used again: three linear runs differing in nothing they use would train otherwise.
    QVERIFY(form.setList("frequencies", "4,8,x"));
    QCOMPARE(form.issues().size(), size_t(1));
    QVERIFY(form.setList("frequencies", "4,8,12"));
    QCOMPARE(form.axes().size(), size_t(1));
    form.setValues({{"head", "linear"}});
    QVERIFY(form.axes().empty());
    QVERIFY(form.issues().empty());
    form.setValues({{"head", "fourier"}});
    QCOMPARE(form.axes().size(), size_t(1));
  }

  void presetsSetOnlyTheirKeys() {
    fl::widgets::ConfigForm form;
    form.setSpecs(specs());
    form.setValues({{"head", "linear"}, {"lr", 0.5}});
    auto v = form.values();
    QCOMPARE(v["head"].get<std::string>(), std::string("linear"));
    QCOMPARE(v["lr"].get<double>(), 0.5);
    QCOMPARE(v["epochs"].get<int>(), 500);
  }
};

QTEST_MAIN(TestConfigForm)
#include "test_config_form.moc"
