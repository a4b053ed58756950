// The parser's public entry points: source text to a Program, one expression, REPL support.
#pragma once

#include <memory>
#include <string>

#include "base/diagnostics.hpp"
#include "base/source.hpp"
#include "lang/syntax/ast.hpp"

namespace scn {

/// Parses a whole file. Every syntax error found goes to `sink` (codes E0001-E0099, see
/// docs/errors/syntax.md); after an error the parser skips to the next statement and goes on,
/// so the result holds every statement that parsed. The program keeps `file` alive; the
/// diagnostics' spans point into it, so keep the program (or `file`) while rendering them.
/// Never throws, whatever the input bytes.
Program parseProgram(std::shared_ptr<SourceFile> file, DiagnosticSink& sink);

/// Parses `file` as one expression (for `scn -e`); null when it has errors (reported to sink).
/// The caller keeps `file` alive as long as the expression's spans are used.
ExprPtr parseExpression(const std::shared_ptr<SourceFile>& file, DiagnosticSink& sink);

/// For the REPL: true when `text` stops inside an open `(`, `[`, `{` or string, or right after
/// a token that needs a continuation (a binary operator, `=`, `,`, `..`, `|`, a keyword such
/// as `let`), so the REPL should read another line before parsing.
bool isIncomplete(const std::string& text);

/// The deepest nesting of brackets, blocks and prefix operators the parser accepts (E0013).
constexpr int kMaxNesting = 256;
/// The deepest expression tree the parser builds, counting each operator in a chain such as
/// `a + b + c + ...` as one level (E0013); keeps every recursive pass over the tree safe.
constexpr int kMaxTreeDepth = 1024;
/// After this many errors in one file the parser stops.
constexpr int kMaxSyntaxErrors = 100;

}  // namespace scn
