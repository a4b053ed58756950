// `import`: finding, parsing and running a file once per session (Note [Import cycles]), a stdlib
// file by name, the import depth limit (E0509).
#include "lang/eval.hpp"

#include <filesystem>

#include "base/diagnostics.hpp"
#include "lang/eval_internal.hpp"
#include "lang/syntax/parser.hpp"

namespace scn {

namespace {
constexpr size_t kMaxImportDepth = 64;  // files importing files (E0509): each level is C++ stack

/// The identity of a file for "each file runs once": its canonical path when it has one.
std::string importKey(const std::filesystem::path& p) {
  std::error_code ec;
  std::filesystem::path canon = std::filesystem::weakly_canonical(p, ec);
  return ec ? p.string() : canon.string();
}
}  // namespace

void Evaluator::noteFileRun(const std::string& path, bool ran) {
  if (ran) importedPaths_.insert(importKey(path));
  else importedPaths_.erase(importKey(path));
}

// Note [Import cycles]
// A file runs once per session: the first `import` of it runs it, later ones (and the script
// itself, Session::runFile) do nothing. It counts as imported from the moment it starts, so in a
// cycle (a imports b imports a) the inner `import "a"` does nothing and b goes on with the names
// a defined before its `import "b"` line; the rest of a's names appear when a goes on (a function
// of b that reads one at call time sees it). This is Python's rule for a partly run module, with
// one file one module. A file that fails is forgotten, so importing it again (after fixing it,
// in the REPL) runs it anew.
void Evaluator::importFile(const ImportStmt& s, const std::shared_ptr<Env>& env) {
  namespace fs = std::filesystem;
  fs::path base = s.span.file ? fs::path(s.span.file->name()).parent_path() : fs::path();
  std::string path = (base / s.path).string();
  std::string key = importKey(path);
  if (importedPaths_.count(key)) return;  // Note [Import cycles]
  if (importChain_.size() >= kMaxImportDepth)
    fail("E0509", s.span, "imports nest deeper than " + std::to_string(kMaxImportDepth) + " files",
         "import the files side by side from one file, not each from the one before",
         {DiagNote{importChain_.front(), "the chain of imports starts here"}});
  std::shared_ptr<const Program> prog = parseImport(s, path);
  importedPaths_.insert(key);
  importChain_.push_back(s.span);
  struct Pop {
    std::vector<Span>& chain;
    ~Pop() { chain.pop_back(); }
  } pop{importChain_};
  try {
    Running running{running_, prog};
    for (const StmtPtr& st : prog->stmts) exec(*st, env);
  } catch (UserError& e) {
    importedPaths_.erase(key);
    keepForError(prog);
    if (e.diag.span.file == prog->source.get()) e.diag.notes.push_back(DiagNote{s.span, "in the file imported here"});
    throw;
  }
}

/// Reads and parses the file an `import` names (a stdlib file by name when no file is there);
/// a syntax error points into that file, with a note at the import.
std::shared_ptr<const Program> Evaluator::parseImport(const ImportStmt& s, const std::string& path) {
  std::optional<std::string> text;
  std::string name = path;
  try {
    text = host_.readFile(path);
  } catch (UserError& e) {
    if (!e.diag.span.valid()) e.diag.span = s.span;
    throw;
  }
  if (!text) {
    // Not beside the importing file: a stdlib file by name ("prelude" or "prelude.scn").
    for (const auto& [file, body] : host_.stdlib) {
      if (file == s.path || file == s.path + ".scn") {
        text = std::string(body);
        name = "<stdlib>/" + std::string(file);
        break;
      }
    }
    if (!text)
      fail("E0502", s.span, "cannot import \"" + s.path + "\": no such file (looked for " + path + ")",
           "paths are relative to the importing file; stdlib files are imported by name");
  }
  DiagnosticSink sink;
  auto prog = std::make_shared<const Program>(
      parseProgram(std::make_shared<SourceFile>(std::move(name), std::move(*text)), sink));
  if (sink.errorCount() > 0) {
    keepForError(prog);
    Diagnostic d = sink.all().front();
    d.notes.push_back(DiagNote{s.span, "in the file imported here"});
    throw UserError(std::move(d));
  }
  return prog;
}

}  // namespace scn
