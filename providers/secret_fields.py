"""The one list of secret-bearing fields, read off the typed settings models.

A field says what of it is secret in its ``json_schema_extra`` (``setting_field(secret=True)``,
``setting_field(url=True)``, or ``Field(json_schema_extra=SECRET)`` in an evaluator):

* ``secret``: the value itself (a string), or every value of a mapping (``extra_headers``,
  a code judge's ``env``) — a ``${{ VAR }}`` stands for that variable's value;
* ``url``: a URL's credentials — its userinfo (``user:password@``), its password, and the
  values of its query parameters (``?token=…``).

Nested models (a cli target's ``healthcheck``) are walked. ``secret_fields`` lists the
fields of a model (``agentv``'s docs and tests read it); ``model_secrets`` gives one
validated model's values, split into ``(marked, loose)``: loose values may be ordinary
(``?api-version=2024-10-21``) and count only from 8 characters. No Prefect here.
"""
from __future__ import annotations

import base64
import os
import re
from typing import Any, Iterable
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from pydantic import BaseModel

SECRET: dict[str, Any] = {"secret": True}
URL: dict[str, Any] = {"url": True}
SECRET_NAME = re.compile(r"key|token|secret|password|passwd|credential|auth|sig", re.I)
PLAIN = re.compile(r"^(?:[-+]?\d+(?:\.\d+)?|true|false|yes|no|null|none|on|off)$", re.I)
LOOSE_MIN_LENGTH = 8  # an ordinary query value (page=2) must not mask every "2"
_INTERP = re.compile(r"\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def _marks(info: Any) -> dict[str, Any]:
    extra = info.json_schema_extra
    return extra if isinstance(extra, dict) else {}


def _nested(annotation: Any) -> type[BaseModel] | None:
    """The model type inside ``Model | None`` (or the annotation itself)."""
    candidates = [annotation, *getattr(annotation, "__args__", ())]
    return next((c for c in candidates if isinstance(c, type) and issubclass(c, BaseModel)), None)


def secret_fields(model: type[BaseModel], prefix: str = "") -> list[str]:
    """``name (secret)`` / ``name (url)`` of each secret-bearing field, nested ones dotted."""
    found: list[str] = []
    for name, info in model.model_fields.items():
        marks = _marks(info)
        found += [f"{prefix}{name} ({m})" for m in ("secret", "url") if marks.get(m)]
        inner = _nested(info.annotation)
        if inner is not None and inner is not model:
            found += secret_fields(inner, f"{prefix}{name}.")
    return found


def url_secrets(url: str) -> tuple[list[str], list[str]]:
    """(marked, loose) credentials of a URL: its userinfo and password, the values of its
    secret-looking query parameters (marked) and of the others (loose)."""
    try:
        parts = urlsplit(url.strip())
        password = parts.password
    except ValueError:
        return [], []
    userinfo = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else ""
    marked = [userinfo, unquote(userinfo), password or "", unquote(password or ""),
              *basic_auth(unquote(userinfo))]
    loose: list[str] = []
    for key, value in parse_qsl(parts.query):
        (marked if SECRET_NAME.search(key) or key == "code" else loose).append(value)
    return _literal(marked), _literal(v for v in loose if len(v) >= LOOSE_MIN_LENGTH)


def basic_auth(userinfo: str) -> list[str]:
    """What a client sends for ``user:password@`` userinfo: ``Basic base64(user:password)``,
    the base64 alone, and both URL-encoded (a server echoing its headers shows them)."""
    if not userinfo:
        return []
    token = base64.b64encode(userinfo.encode()).decode()
    header = f"Basic {token}"
    return [header, token, quote(token, safe=""), quote(header, safe="")]


def _literal(values: Iterable[str]) -> list[str]:
    """Values as they will be used: a ``${{ VAR }}`` left in a value is not the secret."""
    return list(dict.fromkeys(v for v in values if v and not _INTERP.search(v)))


def _resolved(value: str, env: Any) -> list[str]:
    """A value with ``${{ VAR }}``s is secret through the variables' values."""
    names = _INTERP.findall(value)
    if not names:
        return [value]
    return [env[n] for n in names if env.get(n)]


def _value_secrets(value: Any, marks: dict[str, Any], env: Any) -> tuple[list[str], list[str]]:
    values = list(value.values()) if isinstance(value, dict) else \
        list(value) if isinstance(value, (list, tuple)) else [value]
    texts = [str(v) for v in values if isinstance(v, (str, int)) and not isinstance(v, bool)]
    marked: list[str] = []
    loose: list[str] = []
    for text in texts:
        if marks.get("secret"):
            marked += _resolved(text, env)
        if marks.get("url") or (marks.get("secret") and "://" in text):
            for resolved in _resolved(text, env):
                more, maybe = url_secrets(resolved)
                marked += more
                loose += maybe
    return marked, loose


def model_secrets(config: BaseModel | None, env: Any = None) -> tuple[list[str], list[str]]:
    """(marked, loose) secret values of one validated model, nested models included."""
    env = os.environ if env is None else env
    marked: list[str] = []
    loose: list[str] = []
    if config is None:
        return marked, loose
    for name, info in type(config).model_fields.items():
        value = getattr(config, name, None)
        if value is None:
            continue
        if isinstance(value, BaseModel):
            more, maybe = model_secrets(value, env)
        else:
            marks = _marks(info)
            if not marks:  # an unmarked field holds no secret
                continue
            more, maybe = _value_secrets(value, marks, env)
        marked += more
        loose += maybe
    return list(dict.fromkeys(v for v in marked if v)), list(dict.fromkeys(loose))
