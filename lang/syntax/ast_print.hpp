// Text dumps of the front end's output: tokens, the AST as S-expressions, and scn source.
#pragma once

#include <string>

#include "base/diagnostics.hpp"
#include "base/source.hpp"
#include "lang/syntax/ast.hpp"

namespace scn {

/// One token per line, `line:col kind text [value]`, with a `newline` line before each token
/// that starts a line (`scn --emit=tokens`). Lexical errors go to `sink`.
std::string printTokens(const SourceFile& file, DiagnosticSink& sink);
/// The same, dropping lexical errors (they show as `error` tokens).
std::string printTokens(const SourceFile& file);

/// The AST as S-expressions, one top-level statement per line and one block statement per
/// indented line (`scn --emit=ast`). The format is described in docs/grammar.md.
std::string printAst(const Program& program);
std::string printAst(const Expr& expr);

/// scn source text for the AST, parenthesized only where precedence needs it. Parsing the
/// result gives the same AST (the round-trip tests check it).
std::string printSource(const Program& program);
std::string printSource(const Expr& expr);

}  // namespace scn
