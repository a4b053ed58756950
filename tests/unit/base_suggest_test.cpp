// Did-you-mean: the edit distance and the rule for which names are close (base/suggest.hpp).
#include "base/suggest.hpp"

#include <gtest/gtest.h>

namespace scn {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsReplacementsAndSwaps) {
  EXPECT_EQ(editDistance("", ""), 0u);
  EXPECT_EQ(editDistance("sum", ""), 3u);
  EXPECT_EQ(editDistance("", "sum"), 3u);
  EXPECT_EQ(editDistance("cumsun", "cumsum"), 1u);  // replace
  EXPECT_EQ(editDistance("sqr", "sqrt"), 1u);       // insert
  EXPECT_EQ(editDistance("sqrtt", "sqrt"), 1u);     // delete
  EXPECT_EQ(editDistance("lenght", "length"), 1u);  // swap of neighbours
  EXPECT_EQ(editDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(editDistance("True", "true"), 0u);  // case is not a typo
}

TEST(ClosestNames, SuggestsOnlyTheClosestTypos) {
  std::vector<std::string> names = {"cumprod", "cummin", "sum", "cumsum", "mean"};
  EXPECT_EQ(closestNames("cumsun", names), (std::vector<std::string>{"cumsum"}));  // not cummin (2)
  EXPECT_EQ(closestNames("cumsumm", {"cummax", "cumsum"}), (std::vector<std::string>{"cumsum"}));
  EXPECT_EQ(closestNames("axes", {"x", "axis", "dtype"}), (std::vector<std::string>{"axis"}));
  EXPECT_EQ(closestNames("True", {"true", "false"}), (std::vector<std::string>{"true"}));
}

TEST(ClosestNames, IgnoresNamesThatAreNotTypos) {
  EXPECT_TRUE(closestNames("y", {"x", "z"}).empty());  // every letter replaced
  EXPECT_TRUE(closestNames("float32", {"f32", "f64"}).empty());
  EXPECT_TRUE(closestNames("zzz", {"sum", "max"}).empty());
  EXPECT_TRUE(closestNames("sum", {"sum"}).empty());  // the word itself
}

TEST(ClosestNames, ShowsAtMostThreeAndEachOnce) {
  std::vector<std::string> names = {"ab1", "ab2", "ab3", "ab4", "ab1"};
  EXPECT_EQ(closestNames("abc", names), (std::vector<std::string>{"ab1", "ab2", "ab3"}));
  EXPECT_EQ(closestNames("abc", names, 1), (std::vector<std::string>{"ab1"}));
}

// The distance costs the product of the lengths: a generated 30000-letter name with a defined
// one a letter away took 19 s. Names past 100 letters get no suggestion.
TEST(ClosestNames, AVeryLongNameGetsNoSuggestion) {
  std::string defined(30000, 'a');
  EXPECT_TRUE(closestNames(defined + "b", {defined, "abs"}).empty());
  std::string hundred(100, 'a');
  EXPECT_EQ(closestNames(hundred + "b", {hundred + "c"}).size(), 0u);  // 101 letters
  EXPECT_EQ(closestNames(hundred.substr(1) + "b", {hundred}), (std::vector<std::string>{hundred}));
}

TEST(DidYouMean, ListsTheNames) {
  EXPECT_EQ(didYouMean({}), "");
  EXPECT_EQ(didYouMean({"cumsum"}), "did you mean `cumsum`?");
  EXPECT_EQ(didYouMean({"a", "b"}), "did you mean `a` or `b`?");
  EXPECT_EQ(didYouMean({"a", "b", "c"}), "did you mean `a`, `b` or `c`?");
  EXPECT_EQ(didYouMean({"axis"}, "="), "did you mean `axis=`?");
}

}  // namespace
}  // namespace scn
