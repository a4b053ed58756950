// Did-you-mean suggestions: edit distance and the rule for which names are close.
#include "base/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace scn {

namespace {
char folded(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }
}  // namespace

size_t editDistance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic-programming table: the swap of two letters looks two rows back.
  std::vector<size_t> prev2(b.size() + 1), prev(b.size() + 1), row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t replace = prev[j - 1] + (folded(a[i - 1]) == folded(b[j - 1]) ? 0 : 1);
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1, replace});
      if (i > 1 && j > 1 && folded(a[i - 1]) == folded(b[j - 2]) && folded(a[i - 2]) == folded(b[j - 1]))
        row[j] = std::min(row[j], prev2[j - 2] + 1);
    }
    prev2.swap(prev);
    prev.swap(row);
  }
  return prev[b.size()];
}

// Note [Close names]
// A candidate is suggested when at most a third of the misspelt word's letters (at least one)
// must change, and fewer than all of the shorter name's: `cumsun` -> `cumsum`, `axes` -> `axis`,
// `lenght` -> `length`, `True` -> `true`, but a one-letter `y` never suggests `x` (replacing
// every letter is not a typo). This is rustc's rule; Python's difflib cut-off (0.6 similarity)
// is close to it. Only the closest of them are shown (`cumsun` suggests `cumsum`, one letter
// away, and not also `cummin`, two away), at most three, so a short word does not list half the
// builtins. The distance costs the product of the two lengths, so names longer than
// kLongestSuggested get no suggestion (a generated 30000-letter name took 19 s), and a candidate
// whose length alone differs by more than the threshold is not measured.
std::vector<std::string> closestNames(std::string_view word, const std::vector<std::string>& candidates,
                                      size_t max) {
  if (word.size() > kLongestSuggested) return {};
  size_t threshold = std::max<size_t>(1, word.size() / 3);
  std::vector<std::pair<size_t, const std::string*>> close;
  for (const std::string& c : candidates) {
    if (c == word) continue;
    size_t lengthGap = c.size() > word.size() ? c.size() - word.size() : word.size() - c.size();
    if (lengthGap > threshold) continue;
    size_t d = editDistance(word, c);
    if (d <= threshold && d < std::min(word.size(), c.size())) close.emplace_back(d, &c);
  }
  size_t best = threshold;
  for (const auto& [d, c] : close) best = std::min(best, d);
  std::vector<std::string> out;
  for (const auto& [d, c] : close) {
    if (d != best || std::find(out.begin(), out.end(), *c) != out.end()) continue;  // a name in two lists
    out.push_back(*c);
    if (out.size() == max) break;
  }
  return out;
}

std::string didYouMean(const std::vector<std::string>& names, std::string_view suffix) {
  if (names.empty()) return "";
  std::string s = "did you mean ";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) s += i + 1 == names.size() ? " or " : ", ";
    s += "`" + names[i] + std::string(suffix) + "`";
  }
  return s + "?";
}

}  // namespace scn
