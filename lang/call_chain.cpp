// The call chain of an error: the closure calls that were running when it was raised, from the
// failing one out to the user's (Note [Call chains]).
#include "lang/eval.hpp"
#include "lang/eval_internal.hpp"

#include "base/diagnostics.hpp"

namespace scn {

// Note [Call chains]
// An error inside a traced function points at the op that failed, but the mistake is often a
// caller's: it passed the wrong shape. So an error leaving closure calls gets one note per call
// that was running, innermost first, each with the argument types the call was traced with and
// where it was made:
//     note: in a call of inner(f32[3], f32[4]) at chain.scn:2:15
//     note: called from outer(f32[3]) at chain.scn:4:10
// The evaluator keeps a stack of the running calls (frames_, pushed by inlineClosure, which
// every closure call goes through while tracing). The innermost frame's handler adds the notes
// while the whole stack is still there; the frames outside it see them and add nothing. A
// closure that a builtin traces (scan's body, a vmapped function, a cond branch) reads "the
// function given to scan" when it is a lambda; traceBody tells the next call which builtin it
// is (givenTo_). A call from the host has no place in a file: "from the host". Deep recursion
// shows the innermost and outermost kShownAtEachEnd calls and the number left out between.
// Each note has no span of its own but says where the call is, so it reads as one line and a
// host's callback gets the same text as the CLI. (A note with a span would print the source
// line of every call: nine calls of a recursion would fill the screen.)

namespace {
constexpr size_t kShownAtEachEnd = 4;
constexpr size_t kMaxSignatureLength = 120;

// "inner(f32[3], k=2)" as --stats shows it (static parameters with their values), cut short
// when the arguments are many.
std::string callSignature(const Closure& c, const std::vector<Value>& args) {
  std::string s = c.name + "(";
  for (size_t i = 0; i < args.size(); ++i) {
    bool isStatic = c.params && i < c.params->size() && (*c.params)[i].isStatic;
    s += (i ? ", " : "") + (isStatic ? (*c.params)[i].name + "=" : "") + shownArgument(args[i], isStatic);
    if (s.size() > kMaxSignatureLength) break;
  }
  if (s.size() > kMaxSignatureLength) s = s.substr(0, kMaxSignatureLength) + "...";
  return s + ")";
}

// The frame's line: "in a call of f(...)" for the innermost, "called from f(...)" for the rest.
std::string frameMessage(const Closure& c, const std::vector<Value>& args, const std::string& givenTo,
                         bool innermost, bool fromHost) {
  std::string given = "the function given to " + givenTo;
  std::string callee = c.name == "<lambda>" && !givenTo.empty() ? given
                       : givenTo.empty()                       ? callSignature(c, args)
                                                               : callSignature(c, args) + ", " + given;
  bool plainCall = !(c.name == "<lambda>" && !givenTo.empty());
  std::string s = innermost ? (plainCall ? "in a call of " : "in ") + callee : "called from " + callee;
  if (fromHost) s += innermost ? " from the host" : ", called by the host";
  return s;
}
// " at chain.scn:2:15": where a call was made (nothing for the host's).
std::string placeOf(const Span& site) {
  if (!site.valid()) return "";
  auto [line, col] = site.file->lineCol(site.begin);
  return " at " + site.file->name() + ":" + std::to_string(line) + ":" + std::to_string(col);
}

// The innermost frame's note, by which an outer frame sees that the chain is there already.
bool isCallFrameNote(const DiagNote& n) {
  return !n.span.valid() && (n.message.rfind("in a call of ", 0) == 0 || n.message.rfind("in the function given to ", 0) == 0);
}
}  // namespace

void Evaluator::addCallChain(Diagnostic& d) const {
  for (const DiagNote& n : d.notes)
    if (isCallFrameNote(n)) return;  // an inner frame added the chain
  size_t total = frames_.size();
  for (size_t k = 0; k < total; ++k) {  // k = 0 is the innermost call
    if (total > 2 * kShownAtEachEnd + 1 && k == kShownAtEachEnd) {
      d.notes.push_back({Span{}, "... " + std::to_string(total - 2 * kShownAtEachEnd) + " more calls"});
      k = total - kShownAtEachEnd - 1;
      continue;
    }
    const CallFrame& f = frames_[total - 1 - k];
    std::string message = frameMessage(*f.closure, *f.args, f.givenTo, k == 0, !f.site.valid());
    d.notes.push_back({Span{}, message + placeOf(f.site)});
  }
}

}  // namespace scn
