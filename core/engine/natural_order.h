// Text in the order a reader expects: runs of digits compare as the numbers they are, so
// "passkey/acc@64" comes before "passkey/acc@128" and "run 9" before "run 10"; everything else
// compares byte by byte. A strict weak order, for std::map and std::sort.
#pragma once

#include <cstddef>
#include <string_view>

namespace fl {

struct NaturalLess {
  bool operator()(std::string_view a, std::string_view b) const {
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
      if (isDigit(a[i]) && isDigit(b[j])) {
        // Compare the two numbers: without leading zeros, the longer is larger; equal lengths
        // compare digit by digit; equal values with more leading zeros come after.
        const size_t startA = i, startB = j;
        while (i < a.size() && a[i] == '0') ++i;
        while (j < b.size() && b[j] == '0') ++j;
        const size_t digitsA = i, digitsB = j;
        while (i < a.size() && isDigit(a[i])) ++i;
        while (j < b.size() && isDigit(b[j])) ++j;
        const std::string_view numberA = a.substr(digitsA, i - digitsA);
        const std::string_view numberB = b.substr(digitsB, j - digitsB);
        if (numberA.size() != numberB.size()) return numberA.size() < numberB.size();
        if (numberA != numberB) return numberA < numberB;
        if (i - startA != j - startB) return i - startA < j - startB;
        continue;
      }
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i;
      ++j;
    }
    return a.size() - i < b.size() - j;
  }

 private:
  static bool isDigit(char c) { return c >= '0' && c <= '9'; }
};

}  // namespace fl
