"""The exceptions of the unum package."""


class UnumError(Exception):
    """An error reported by libUnum (its located diagnostics are the message)."""


class CompileError(UnumError):
    """A function cannot be compiled. `filename`, `lineno` and `col` (1-based)
    locate it in the Python source; str() is "file:line:col: error: message"."""

    def __init__(self, message, filename=None, lineno=None, col=None):
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.col = col
        if filename is not None:
            text = "%s:%d:%d: error: %s" % (filename, lineno or 0, col or 0, message)
        else:
            text = message
        super().__init__(text)
