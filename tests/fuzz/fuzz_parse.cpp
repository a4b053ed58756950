// Fuzz target: the lexer and parser on arbitrary bytes, with the printers' round trip.
//
// Properties: parseProgram never throws or crashes, whatever the bytes (lang/syntax/parser.hpp);
// every diagnostic renders; a program that parses without errors prints back (printSource) to
// text that parses without errors to the same AST (printAst), and token dumps never crash.
#include <cstdint>
#include <memory>

#include "fuzz_util.hpp"
#include "lang/syntax/ast_print.hpp"
#include "lang/syntax/parser.hpp"

using namespace scn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return -1;  // the parser is linear; bigger inputs only slow the search
  std::string text = fuzz::textOf(data, size);
  auto file = std::make_shared<SourceFile>("fuzz.scn", text);
  DiagnosticSink sink;
  Program prog;
  try {
    prog = parseProgram(file, sink);
  } catch (const std::exception& e) {
    fuzz::finding(std::string("parseProgram threw: ") + e.what(), text);
  }
  fuzz::checkDiagnostics(sink, text);
  (void)isIncomplete(text);
  {
    DiagnosticSink tokSink;
    (void)printTokens(*file, tokSink);
    fuzz::checkDiagnostics(tokSink, text);
  }
  {
    DiagnosticSink exprSink;
    try {
      (void)parseExpression(file, exprSink);
    } catch (const std::exception& e) {
      fuzz::finding(std::string("parseExpression threw: ") + e.what(), text);
    }
    fuzz::checkDiagnostics(exprSink, text);
  }
  if (sink.errorCount() > 0) return 0;

  // Round trip: print the program as source, parse that, compare the ASTs.
  std::string ast = printAst(prog);
  std::string again = printSource(prog);
  auto file2 = std::make_shared<SourceFile>("roundtrip.scn", again);
  DiagnosticSink sink2;
  Program prog2 = parseProgram(file2, sink2);
  if (sink2.errorCount() > 0) {
    std::string msgs;
    for (const Diagnostic& d : sink2.all()) msgs += render(d) + "\n";
    fuzz::finding("printSource output does not parse:\n" + again + "\n" + msgs, text);
  }
  std::string ast2 = printAst(prog2);
  if (ast != ast2)
    fuzz::finding("round trip changed the AST\n--- first ---\n" + ast + "\n--- printed ---\n" + again +
                      "\n--- reparsed ---\n" + ast2,
                  text);
  return 0;
}
