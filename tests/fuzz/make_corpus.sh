#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets from the project's own programs.
#   tests/fuzz/make_corpus.sh OUTDIR
# OUTDIR/parse and OUTDIR/session get every .scn file under tests/programs and examples (the
# REPL transcripts' input lines too); OUTDIR/tracer, OUTDIR/capi and OUTDIR/cache get a few fixed byte strings
# (their inputs are choices, not text). Existing corpus files are kept: the corpora grow across
# runs.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:?usage: make_corpus.sh OUTDIR}"
mkdir -p "$out"/parse "$out"/session "$out"/tracer "$out"/capi "$out"/cache "$out"/npy
n=0
while IFS= read -r -d '' f; do
  name="seed_$(printf '%s' "${f#$root/}" | tr '/.' '__')"
  cp "$f" "$out/parse/$name"
  # Programs that run into the unroll budget trace 200,000 operations first: ~5 s natively, up
  # to 80 s under ASan on a loaded machine, past the fuzzers' per-input timeout. Parsing them is
  # quick; the session target does without them.
  grep -q 'error\[E0105\]' "$f" && { n=$((n + 1)); continue; }
  # The session target skips inputs over 2 KiB: cut big programs at a line boundary.
  if [ "$(wc -c < "$f")" -le 2048 ]; then cp "$f" "$out/session/$name"
  else head -c 2048 "$f" | sed '$d' > "$out/session/$name"; fi
  n=$((n + 1))
done < <(find "$root/tests/programs" "$root/examples" -name '*.scn' -print0 | sort -z)
if [ -d "$root/tests/repl" ]; then
  for f in "$root"/tests/repl/*.repl; do
    [ -e "$f" ] || continue
    name="seed_repl_$(basename "$f" .repl)"
    grep -E '^> ' "$f" | sed -E 's/^> //' | grep -v '^:' | head -c 2048 > "$out/session/$name" || true
  done
fi
# The structured targets: a few deterministic byte strings of different lengths.
for len in 16 64 256 1024; do
  for seed in 1 2 3; do
    python3 -c "import random,sys; random.seed($seed * 1000 + $len); sys.stdout.buffer.write(bytes(random.getrandbits(8) for _ in range($len)))" \
      > "$out/tracer/seed_${len}_${seed}"
    cp "$out/tracer/seed_${len}_${seed}" "$out/capi/seed_${len}_${seed}"
    cp "$out/tracer/seed_${len}_${seed}" "$out/cache/seed_${len}_${seed}"
  done
done
# fuzz_npy: the golden and broken files of tests/data/npy, each behind the byte that picks the
# reader (0: header, 1: .npy decoder, 2: .npz reader).
for f in "$root"/tests/data/npy/*.npy "$root"/tests/data/npy/*.npz; do
  [ "$(wc -c < "$f")" -le 4095 ] || continue
  name="seed_$(basename "$f" | tr '.' '_')"
  case "$f" in
    *.npz) { printf '\x02'; cat "$f"; } > "$out/npy/$name" ;;
    *) { printf '\x00'; cat "$f"; } > "$out/npy/${name}_h"; { printf '\x01'; cat "$f"; } > "$out/npy/$name" ;;
  esac
done
echo "seed corpus: $n programs in $out/{parse,session}; byte seeds in $out/{tracer,capi,cache}"
