// Helpers shared by the libFuzzer targets: findings, diagnostic checks, feature switches.
#include "fuzz_util.hpp"

#include <cstdio>
#include <cstdlib>

namespace scn::fuzz {

void finding(const std::string& what, std::string_view input) {
  std::fprintf(stderr, "\n==== scn fuzz finding ====\n%s\n", what.c_str());
  if (!input.empty())
    std::fprintf(stderr, "---- input ----\n%.*s\n---- end ----\n", static_cast<int>(input.size()), input.data());
  std::fflush(stderr);
  std::abort();
}

void checkDiagnostic(const Diagnostic& d, std::string_view input) {
  std::string text = render(d);
  if (d.code == "E9999") finding("internal compiler error:\n" + text, input);
  if (d.severity == Severity::Error && d.code.empty()) finding("diagnostic without a code:\n" + text, input);
  if (d.message.empty()) finding("diagnostic without a message:\n" + text, input);
}

void checkDiagnostics(const DiagnosticSink& sink, std::string_view input) {
  for (const Diagnostic& d : sink.all()) checkDiagnostic(d, input);
}

bool envFlag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::string_view(v) != "0";
}

}  // namespace scn::fuzz
