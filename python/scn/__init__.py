"""scn from Python: load .scn programs and call their functions on NumPy arrays, without copies.

    import numpy as np, scn
    ctx = scn.Context()                      # backend="auto": a usable GPU, else the CPU JIT
    ctx.run("fn axpy(a, x, y) = a * x + y")
    ctx.axpy(2.0, np.ones(3, np.float32), np.arange(3, dtype=np.float32))

See docs/python.md.
"""
from typing import NamedTuple, Optional, Tuple

from ._scn import Context, Function, version, _set_error_class

__all__ = ["Context", "Function", "Error", "Note", "compile", "version"]


class Note(NamedTuple):
    """A secondary location of a diagnostic ("the traced value comes from here")."""
    message: str
    file: str
    line: int
    column: int


class Error(Exception):
    """A diagnostic from scn: ``str(e)`` is the text the command line prints (header, source line,
    caret, notes, help); the fields are those of docs/errors.md's records."""

    def __init__(self, rendered: str, *, code: str = "", message: str = "", file: str = "",
                 line: int = 0, column: int = 0, notes=(), help: str = "", status: str = ""):
        super().__init__(rendered)
        self.rendered = rendered
        self.code = code
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.notes: Tuple[Note, ...] = tuple(Note(*n) for n in notes)
        self.help = help
        self.status = status  # "program error", "invalid argument", "interrupted", ...

    def __str__(self) -> str:
        return self.rendered


_set_error_class(Error)


def compile(source: str, name: Optional[str] = None, **options) -> Function:
    """Runs `source` in a new Context and returns its function: the one `fn` it defines, or the
    one called `name`. `options` are Context's (backend="auto", opt_level=2, ...)."""
    ctx = Context(**options)
    before = set(ctx.names())
    ctx.run(source, "<compile>")
    if name is not None:
        return ctx[name]
    defined = []
    for n in ctx.names():
        if n in before:
            continue
        try:
            defined.append(ctx[n])
        except Error:  # a global that is not a function
            pass
    if len(defined) != 1:
        names = ", ".join(f.name for f in defined) or "none"
        raise ValueError(f"scn.compile: the source defines {len(defined)} functions ({names}); "
                         "pass name= to choose one")
    return defined[0]
