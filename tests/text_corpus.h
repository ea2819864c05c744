// A corpus a test can write and edit in place: the character-level experiments' tiny text,
// for a resume onto a text changed since (the run and the study alike refuse it).
#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>

namespace fl::testing {

// One sentence over and over, `characters` long: more than any tiny model's training length.
inline QByteArray sentenceCorpus(int characters = 4000) {
  static const char kSentence[] = "the quick brown fox jumps over the lazy dog\n";
  QByteArray text;
  for (int i = 0; i < characters; ++i) text += kSentence[i % (sizeof kSentence - 1)];
  return text;
}

// `bytes` as the whole of the file at `path`; false where it could not be written.
inline bool writeWholeFile(const QString& path, const QByteArray& bytes) {
  QFile file(path);
  return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(bytes) == bytes.size();
}

}  // namespace fl::testing
