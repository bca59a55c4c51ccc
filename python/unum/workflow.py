"""Workflows from Python: compile an AWS Step Functions state machine (or
Unum IR) to Unum configs and run the application locally on a data store,
without shelling out to unumc or unum-run (docs/Python.md)."""
import ctypes
import json
import os
import traceback

from . import _capi
from .errors import UnumError


def compile(source, out_dir, format="json", name=None):
    """Compiles `source` (an ASL JSON file, or a `.mlir` Unum IR module) into
    `out_dir`/<Function>/unum_config.<format>; all files or none. Raises
    UnumError with the located diagnostics."""
    options = _capi.WorkflowOptions(_capi.encode(format), _capi.encode(name))
    _capi.check(_capi.lib.unum_workflow_compile(
        _capi.context().handle, _capi.encode(os.fspath(source)),
        _capi.encode(os.fspath(out_dir)), ctypes.byref(options)))
    return out_dir


def run(app_dir, input, store="memory", workers=4, handlers=None, time_scale=1.0):
    """Runs the application in `app_dir` with the workflow `input` (any
    JSON-able value, or a payload {"Data": ...}) and returns the terminal
    instances' outputs, a dict keyed by instance name.

    `handlers` maps function names to Python callables (input -> output,
    JSON values) for the functions without an executable `handler` in their
    directory; an exception in one fails that invocation as
    States.TaskFailed (or as its class name when it has an `error_name`)."""
    handlers = dict(handlers or {})

    def dispatch(_data, function, input_json, reply):
        name = function.decode()
        fn = handlers.get(name)
        try:
            if fn is None:
                raise LookupError("no Python handler for function '%s'" % name)
            output = fn(json.loads(input_json.decode()))
            _capi.lib.unum_handler_reply_output(reply, json.dumps(output).encode())
        except Exception as e:  # reported to the workflow, not raised here
            error = getattr(e, "error_name", None) or "States.TaskFailed"
            cause = "".join(traceback.format_exception_only(type(e), e)).strip()
            _capi.lib.unum_handler_reply_error(reply, error.encode(), cause.encode())

    callback = _capi.HANDLER_FN(dispatch)
    options = _capi.WorkflowRunOptions(
        _capi.encode(store), workers, time_scale,
        callback if handlers else _capi.HANDLER_FN(), None)
    out = ctypes.c_void_p()
    _capi.check(_capi.lib.unum_workflow_run(
        _capi.context().handle, _capi.encode(os.fspath(app_dir)),
        json.dumps(input).encode(), ctypes.byref(options), ctypes.byref(out)))
    return json.loads(_capi.take_string(out))


__all__ = ["compile", "run", "UnumError"]
