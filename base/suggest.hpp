// Did-you-mean: the known names closest to a misspelt one (Note [Close names]).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace scn {

/// Names longer than this get no suggestion: the edit distance costs the product of the lengths.
constexpr size_t kLongestSuggested = 100;

/// The optimal-string-alignment distance: inserting, deleting or replacing a character, or
/// swapping two adjacent ones, each costs 1. Letters differing only in case count as equal.
size_t editDistance(std::string_view a, std::string_view b);

/// Up to `max` of the `candidates` closest to `word`, when close enough to be what was meant
/// (Note [Close names]), in the order given (so a caller lists its likeliest names first);
/// never `word` itself.
std::vector<std::string> closestNames(std::string_view word, const std::vector<std::string>& candidates,
                                      size_t max = 3);

/// "did you mean `a`?", "did you mean `a` or `b`?", "did you mean `a`, `b` or `c`?"; empty for
/// no names. `suffix` follows each name inside its backquotes (`axis=`).
std::string didYouMean(const std::vector<std::string>& names, std::string_view suffix = "");

}  // namespace scn
