"""Message and prompt templates: Jinja2 in a sandbox with StrictUndefined.

Most messages only substitute names (`'{{ phrase }}' was {{ days_past }} days ago`); those
render without importing Jinja2, with the same result and the same error for a missing
name, so the session-start path stays light.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

_SIMPLE = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*\}\}")
_JINJA_SYNTAX = re.compile(r"\{[{%#]|[}%#]\}")


class TemplateError(Exception):
    """A template that does not compile or does not render; message says why."""


def is_simple(template: str) -> bool:
    return not _JINJA_SYNTAX.search(_SIMPLE.sub("", template))


@lru_cache(maxsize=256)
def _compiled(template: str) -> Any:
    import jinja2
    from jinja2.sandbox import SandboxedEnvironment

    env = SandboxedEnvironment(undefined=jinja2.StrictUndefined, autoescape=False)
    try:
        return env.from_string(template)
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(
            f"template syntax error on its line {exc.lineno}: {exc.message}"
        ) from None


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
    import jinja2
    from jinja2.exceptions import SecurityError

    try:
        return str(_compiled(template).render(**values))
    except (jinja2.UndefinedError, SecurityError, TypeError, ValueError) as exc:
        raise TemplateError(str(exc)) from None
