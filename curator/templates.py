"""Message and prompt templates: Jinja2 in a sandbox with StrictUndefined.

Most messages only substitute names (`'{{ phrase }}' was {{ days_past }} days ago`); those
render without importing Jinja2, with the same result and the same error for a missing
name, so the session-start path stays light.

A rule pack from elsewhere can neither run code nor run forever: a render may make at
most MAX_CALLS calls (a recursive macro runs out), take at most MAX_RANGE items from one
`range()` and MAX_ITERATIONS from all of them, build no string, list or number past
MAX_OUTPUT characters (`*`, `**`, `+`, `~`, `%`, widths in `format`, filter arguments),
write at most MAX_OUTPUT characters, and stop after MAX_SECONDS (a loop over data). Any
of these, like any error inside the template, is a TemplateError: the engine reports
the rule as CUR900 and goes on.
"""

from __future__ import annotations

import re
import sys
import threading
import time
from functools import lru_cache, wraps
from types import FrameType
from typing import Any

_SIMPLE = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*\}\}")
_JINJA_SYNTAX = re.compile(r"\{[{%#]|[}%#]\}")

MAX_CALLS = 10_000  # calls per render: macros, methods, globals
MAX_RANGE = 10_000  # items one range() may hold
MAX_ITERATIONS = 100_000  # range() items per render, all ranges together
MAX_OUTPUT = 1_000_000  # characters of output, and of any string or list built on the way
MAX_SECONDS = 2.0  # wall clock per render: loops over data have no other bound
_MAX_BITS = 8 * MAX_OUTPUT  # an integer `**` may build
_NUMBER = re.compile(r"\d+")
_PERCENT_SPEC = re.compile(r"%[-#0 +]*[\d*]*(?:\.[\d*]*)?")
_BRACE_SPEC = re.compile(r"\{[^{}]*\}")
# Only a loop or a macro can run long: without them a template runs once, top to bottom.
_LOOPS = re.compile(r"\{%[-+]?\s*(?:for|macro|call)\b")


class TemplateError(Exception):
    """A template that does not compile or does not render; message says why."""


class _LimitReached(Exception):
    """A render went past one of the limits above."""


class _Budget(threading.local):
    """What the render running on this thread may still spend."""

    calls = MAX_CALLS
    iterations = MAX_ITERATIONS
    deadline = 0.0
    lines = 0


_budget = _Budget()


def is_simple(template: str) -> bool:
    return not _JINJA_SYNTAX.search(_SIMPLE.sub("", template))


def _refuse(what: str) -> _LimitReached:
    return _LimitReached(f"{what}; the template was stopped")


def _check_length(length: int) -> None:
    if length > MAX_OUTPUT:
        raise _refuse(f"it built a value of {length:,} items, over {MAX_OUTPUT:,}")


def _check_size(value: Any) -> Any:
    if isinstance(value, (str, bytes, list, tuple)):
        _check_length(len(value))
    return value


def _check_widths(format_text: str, spec: re.Pattern[str]) -> None:
    """No width or precision in a format string past MAX_OUTPUT (`%0999999999d`)."""
    for field in spec.findall(format_text):
        if "*" in field or any(int(n) > MAX_OUTPUT for n in _NUMBER.findall(field)):
            raise _refuse(f"format field '{field[:40]}' is too wide")


def _bounded_range(*args: int) -> range:
    items = range(*args)
    if len(items) > MAX_RANGE:
        raise _refuse(f"range() of {len(items):,} items, over {MAX_RANGE:,}")
    _budget.iterations -= len(items)
    if _budget.iterations < 0:
        raise _refuse(f"range() items past {MAX_ITERATIONS:,} in one render")
    return items


def _bounded_filter(function: Any) -> Any:
    @wraps(function)  # keeps `jinja_pass_arg`, so context-taking filters still get it
    def bounded(*args: Any, **kwargs: Any) -> Any:
        for value in (*args, *kwargs.values()):
            if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_OUTPUT:
                raise _refuse(f"a filter argument of {value:,}, over {MAX_OUTPUT:,}")
        return _check_size(function(*args, **kwargs))

    return bounded


def _bounded_join(values: Any) -> str:
    """`a ~ b`: the join, refused when it would pass MAX_OUTPUT."""
    parts = [str(v) for v in values]
    if sum(map(len, parts)) > MAX_OUTPUT:
        raise _refuse(f"'~' built a string over {MAX_OUTPUT:,} characters")
    return "".join(parts)


def _check_binop(operator: str, left: Any, right: Any) -> None:
    """Refuse `*`, `**`, `+` and `%` whose result would pass the limits, before it is built."""
    sequences = (str, list, tuple)
    if operator == "**" and isinstance(left, int) and isinstance(right, int):
        if right > 0 and abs(left) > 1 and abs(left).bit_length() * right > _MAX_BITS:
            raise _refuse("'**' would build a number too large")
    elif operator == "*":
        for seq, times in ((left, right), (right, left)):
            if isinstance(seq, sequences) and isinstance(times, int):
                _check_length(len(seq) * max(times, 0))
    elif operator == "%" and isinstance(left, str):
        _check_widths(left, _PERCENT_SPEC)
    elif operator == "+" and isinstance(left, sequences) and isinstance(right, sequences):
        _check_length(len(left) + len(right))


@lru_cache(maxsize=1)
def _environment() -> Any:
    import jinja2
    from jinja2.sandbox import SandboxedEnvironment

    class Bounded(SandboxedEnvironment):
        intercepted_binops = frozenset({"*", "**", "+", "%"})

        def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
            _budget.calls -= 1
            if _budget.calls < 0:
                raise _refuse(f"more than {MAX_CALLS:,} calls (a recursive macro?)")
            return _check_size(super().call(__context, __obj, *args, **kwargs))

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            _check_binop(operator, left, right)
            return _check_size(super().call_binop(context, operator, left, right))

        def wrap_str_format(self, value: Any) -> Any:
            wrapped = super().wrap_str_format(value)
            if wrapped is not None and isinstance(getattr(value, "__self__", None), str):
                _check_widths(value.__self__, _BRACE_SPEC)
            return wrapped

    env = Bounded(undefined=jinja2.StrictUndefined, autoescape=False)
    env.globals["range"] = _bounded_range
    env.filters = {name: _bounded_filter(f) for name, f in env.filters.items()}
    return env


@lru_cache(maxsize=256)
def _compiled(template: str) -> Any:
    import jinja2

    try:
        compiled = _environment().from_string(template)
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(
            f"template syntax error on its line {exc.lineno}: {exc.message}"
        ) from None
    except _LimitReached as exc:  # a constant folded at compile time went past a limit
        raise TemplateError(str(exc)) from None
    # `a ~ b` compiles to the module-level `str_join`, which no sandbox hook sees.
    namespace = compiled.root_render_func.__globals__
    if "str_join" in namespace:
        namespace["str_join"] = _bounded_join
    return compiled


def check_template(template: str) -> None:
    """Raise TemplateError when the template does not compile."""
    if not is_simple(template):
        _compiled(template)


def render(template: str, values: dict[str, Any]) -> str:
    if is_simple(template):

        def value(match: re.Match[str]) -> str:
            key = match.group(1)
            if key not in values:
                raise TemplateError(f"'{key}' is undefined")
            return str(values[key])

        return _SIMPLE.sub(value, template)
    return _render_bounded(_compiled(template), values, bool(_LOOPS.search(template)))


def _render_bounded(compiled: Any, values: dict[str, Any], loops: bool) -> str:
    """Render under this thread's budget; every failure is a TemplateError. The clock
    is watched (a line trace on template code) only when the template can loop."""
    _budget.calls, _budget.iterations = MAX_CALLS, MAX_ITERATIONS
    _budget.deadline, _budget.lines = time.monotonic() + MAX_SECONDS, 0
    previous = sys.gettrace()
    if loops:
        sys.settrace(_trace_templates)
    out: list[str] = []
    size = 0
    try:
        for piece in compiled.generate(**values):
            size += len(piece)
            if size > MAX_OUTPUT:
                raise _refuse(f"output over {MAX_OUTPUT:,} characters")
            out.append(piece)
    except Exception as exc:  # whatever a template does wrong is the template's failure
        raise TemplateError(str(exc) or type(exc).__name__) from None
    finally:
        if loops:
            sys.settrace(previous)
    return "".join(out)


def _trace_templates(frame: FrameType, event: str, arg: Any) -> Any:
    """Line-trace only code compiled from a template, to stop it at the deadline."""
    return _over_time if frame.f_code.co_filename == "<template>" else None


def _over_time(frame: FrameType, event: str, arg: Any) -> Any:
    _budget.lines += 1
    if _budget.lines % 1024 == 0 and time.monotonic() > _budget.deadline:
        raise _refuse(f"it ran past {MAX_SECONDS:g} seconds")
    return _over_time
