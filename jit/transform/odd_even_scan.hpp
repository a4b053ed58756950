// The odd-even recursion of an associative scan (Note [Odd-even associative scan] in
// jit/transform/expand_assoc_scan.cpp), written once for its two builders: the
// expand-associative-scans pass (IR equations) and the tracer (calls of f on slices).
#pragma once

namespace scn {

/// The inclusive scan of `x` (one value per scanned array) along the builder's axis. The
/// builder provides len(x), part(x, lo, hi, step), part(x, lo, hi), combine(a, b) (f position by
/// position on slices of one shape), concat(a, b) and interleave(even, odd).
template <class Builder, class Leaves>
Leaves oddEvenScan(Builder& b, const Leaves& x) {
  const int64_t n = b.len(x);
  if (n < 2) return x;
  Leaves odd = oddEvenScan(b, b.combine(b.part(x, 0, n - 1, 2), b.part(x, 1, n, 2)));
  Leaves rest = b.part(x, 2, n, 2);  // positions 2, 4, ...: one fewer than odd when n is even
  Leaves evenTail = b.combine(b.len(rest) < b.len(odd) ? b.part(odd, 0, b.len(odd) - 1) : odd, rest);
  Leaves even = b.concat(b.part(x, 0, 1), evenTail);
  return b.interleave(even, odd);
}

}  // namespace scn
