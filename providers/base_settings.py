"""Typed target settings: the base model every provider's settings extend, field helpers
(AgentV's snake_case/camelCase aliases, bounds, secret marking) and the one function that
turns a targets.yaml mapping into a validated model or one ``ConfigError``.

A provider declares ``class FooSettings(ProviderSettings)`` with fields made by ``setting_field()``
and registers it in ``providers.registry``; ``validate``, the run's preflight, redaction
(``secret_values``) and ``agentv schema`` all read that one model. No Prefect, no litellm.
"""
from __future__ import annotations

import math
import types
from typing import (
    AbstractSet,
    Annotated,
    Any,
    Callable,
    ClassVar,
    Mapping,
    Union,
    get_args,
    get_origin,
)

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from agentv.providers.error_phrases import describe_error
from agentv.providers.errors import ConfigError, ConfigErrors, did_you_mean

MAX_TIMEOUT_S = 7 * 24 * 3600.0  # a week: anything longer is a typo
MAX_DELAY_MS = 3_600_000.0  # an hour between retries at most
MAX_RETRIES = 100


def _no_bool(value: Any) -> Any:
    """YAML ``true`` is not the number 1."""
    if isinstance(value, bool):
        raise ValueError(f"must be a number, got {str(value).lower()}")
    return value


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"must be a finite number, got {value!r}")
    return value


#: validation context key: the values were filled in from ``${{ VAR }}`` (text by nature)
FROM_ENV = "from_env"


def _text_is_number(info: ValidationInfo | None) -> bool:
    return bool(info is not None and isinstance(info.context, dict)
                and info.context.get(FROM_ENV))


def _quoted_number(value: Any, info: ValidationInfo | None, what: str) -> Any:
    """YAML's ``'8'`` is text, not the number 8 (AgentV's schemas reject it too); a value
    filled in from an environment variable is converted. Other text fails as usual."""
    if isinstance(value, str) and not _text_is_number(info):
        try:
            float(value)
        except ValueError:
            return value
        raise ValueError(f"must be {what}, got text {value!r} (write it without quotes)")
    return value


def _no_text_int(value: Any, info: ValidationInfo) -> Any:
    return _quoted_number(value, info, "a whole number")


def _no_text(value: Any, info: ValidationInfo) -> Any:
    return _quoted_number(value, info, "a number")


Int = Annotated[int, BeforeValidator(_no_text_int), BeforeValidator(_no_bool)]
Float = Annotated[float, BeforeValidator(_finite), BeforeValidator(_no_text),
                  BeforeValidator(_no_bool)]


def _wants_number(annotation: Any, kinds: Any = (int, float)) -> bool:
    """``int``/``float`` (optional or in a union) and no ``str`` among the choices."""
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    if get_origin(annotation) is Annotated:
        return _wants_number(get_args(annotation)[0], kinds)
    if get_origin(annotation) in (Union, types.UnionType):
        choices = get_args(annotation)
        return (any(_wants_number(c, kinds) for c in choices)
                and not any(c is str or get_origin(c) is Annotated and get_args(c)[0] is str
                            for c in choices))
    return annotation in kinds


class NumbersNotText(BaseModel):
    """A config model whose number fields refuse text (``weight: '2'``), as ``Int``/``Float``
    do: every setting is checked by its model, no quoted number slips through."""

    @field_validator("*", mode="before")
    @classmethod
    def _numbers_are_not_text(cls, value: Any, info: ValidationInfo) -> Any:
        what = _number_kind(cls, info.field_name or "")
        return value if what is None else _quoted_number(value, info, what)


_NUMBER_KINDS: dict[tuple[type, str], tuple[Any, str | None]] = {}


def _number_kind(cls: type[BaseModel], name: str) -> str | None:
    """"a number" / "a whole number" when the field wants one (None: it does not); decided
    once per model field (its annotation is read again only if the field was replaced)."""
    field = cls.model_fields.get(name)
    known = _NUMBER_KINDS.get((cls, name))
    if known is not None and known[0] is field:
        return known[1]
    what = None
    if field is not None and _wants_number(field.annotation):
        what = "a number" if _wants_number(field.annotation, float) else "a whole number"
    _NUMBER_KINDS[(cls, name)] = (field, what)
    return what


def setting_field(*aliases: str, default: Any = None, secret: bool = False, url: bool = False,
                  description: str = "", unit: str | None = None, **constraints: Any) -> Any:
    """A settings field: the first alias is the canonical name, the rest AgentV's spellings.

    ``secret=True`` marks values that must never be written, ``url=True`` a URL whose
    userinfo and query values must not (``providers.secret_fields``); ``unit`` documents
    seconds/milliseconds in the JSON Schema."""
    extra: dict[str, Any] = {"aliases": list(aliases)}
    if secret:
        extra["secret"] = True
    if url:
        extra["url"] = True
    if unit:
        extra["unit"] = unit
    return Field(default, validation_alias=AliasChoices(*aliases), description=description or None,
                 json_schema_extra=extra, **constraints)


def seconds(*aliases: str, description: str = "", default: Any = None) -> Any:
    return setting_field(*aliases, default=default, unit="seconds", gt=0, le=MAX_TIMEOUT_S,
                   description=description)


class ProviderSettings(NumbersNotText):
    """Settings every target accepts: the retry policy (applied by ``providers.llm.retry``)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, allow_inf_nan=False,
                              arbitrary_types_allowed=True)
    #: extra keys are passed on (provider ``litellm``), so they are not "unknown"
    extras_pass_through: ClassVar[bool] = False

    max_retries: Int | None = setting_field("max_retries", "maxRetries", ge=0, le=MAX_RETRIES,
                                      description="Retries of a transient failure")
    retry_initial_delay_ms: Float | None = setting_field(
        "retry_initial_delay_ms", "retryInitialDelayMs", unit="milliseconds", ge=0,
        le=MAX_DELAY_MS)
    retry_max_delay_ms: Float | None = setting_field("retry_max_delay_ms", "retryMaxDelayMs",
                                               unit="milliseconds", ge=0, le=MAX_DELAY_MS)
    retry_backoff_factor: Float | None = setting_field("retry_backoff_factor", "retryBackoffFactor",
                                                 ge=1, le=10)
    retry_status_codes: list[Annotated[Int, Field(ge=100, le=599)]] | None = setting_field(
        "retry_status_codes", "retryStatusCodes", description="HTTP statuses that are retried")
    verbose: bool | None = setting_field("verbose", description="AgentV's provider debug flag")

    def missing_env(self, env: Mapping[str, str]) -> list[str]:
        """Environment variables this target needs but cannot find (credentials that default
        to an environment variable); the plan reports all targets' gaps in one message."""
        return []


def alias_names(model: type[BaseModel]) -> set[str]:
    names: set[str] = set()
    for name, info in model.model_fields.items():
        names.add(name)
        alias = info.validation_alias
        if isinstance(alias, AliasChoices):
            names.update(a for a in alias.choices if isinstance(a, str))
        elif isinstance(alias, str):
            names.add(alias)
    return names


def secret_values(config: BaseModel | None) -> list[str]:
    """The values of a validated settings model's secret-bearing fields (strings, the
    values of a secret mapping such as ``extra_headers``, a URL field's credentials; nested
    models too): ``providers.secret_fields`` reads them off the model."""
    from agentv.providers.secret_fields import model_secrets
    marked, _loose = model_secrets(config)
    return marked


def _written_key(loc: tuple, raw: Mapping[str, Any], model: type[BaseModel]) -> str:
    """The key as the user spelled it (``maxRetries``), with any nested path."""
    head = str(loc[0]) if loc else ""
    info = model.model_fields.get(head)
    if info is not None and isinstance(info.validation_alias, AliasChoices):
        head = next((a for a in info.validation_alias.choices
                     if isinstance(a, str) and a in raw), head)
    return ".".join([head, *(str(p) for p in loc[1:])])


def parse_settings(model: type[BaseModel], raw: Mapping[str, Any], *, where: str,
                   line_of: Callable[[str], str] | None = None,
                   deferred: AbstractSet[str] = frozenset(), context: dict | None = None,
                   warn: Callable[[str], None] | None = None, label: str = "",
                   from_env: bool = False) -> Any:
    """Validate ``raw`` (keys as written) against ``model``.

    Keys in ``deferred`` hold a ``${{ VAR }}`` still to be filled in: they count as present
    but are not type-checked (returns ``None`` then; the resolved values are checked again).
    ``from_env``: the values were filled in from environment variables, so text converts to
    numbers. Unknown keys go to ``warn``."""
    data = {k: v for k, v in raw.items() if k not in deferred}
    at = line_of or (lambda _key: where)
    if from_env:
        context = {**(context or {}), FROM_ENV: True}
    near: list[ConfigError] = []  # a near miss of a known setting: an error, not ignored
    if warn and not getattr(model, "extras_pass_through", False):
        known = alias_names(model)
        for key in [k for k in raw if k not in known]:
            hint = did_you_mean(key, known)
            if hint:
                near.append(ConfigError(f"unknown setting '{key}'{label}{hint}", at(key)))
                continue
            warn(f"{at(key)}: unknown setting '{key}'{label} "
                 f"(ignored; known: {', '.join(sorted(model.model_fields))})")
    try:
        config = model.model_validate(data, context=context)
    except ValidationError as err:
        found: list[ConfigError] = []
        for e in err.errors():
            loc = e.get("loc", ())
            key = str(loc[0]) if loc else ""
            if e.get("type") == "missing" and _deferred_field(model, key, deferred):
                continue
            written = _written_key(loc, raw, model)
            if any((f.field or "").split(".")[0] == written.split(".")[0] for f in found):
                continue  # one error per key (a list's first bad item)
            shown = {k: v for k, v in e.items() if k != "input"} if _secret_bearing(model, key) \
                else e  # a secret's value is never echoed back ("got …")
            found.append(ConfigError(describe_error(shown), at(written.split(".")[0]), written))
        found += near
        if found:  # every error of the mapping at once
            raise (found[0] if len(found) == 1 else ConfigErrors(found)) from None
        return None
    if near:
        raise near[0] if len(near) == 1 else ConfigErrors(near)
    if deferred:
        return None
    lints: Any = getattr(config, "lints", None)  # (setting, message): validate-time warnings
    if warn is not None and callable(lints):
        for name, message in lints():
            warn(f"{at(name)}: {name}: {message}")
    return config


def _secret_bearing(model: type[BaseModel], name: str) -> bool:
    info = model.model_fields.get(name)
    extra = info.json_schema_extra if info is not None else None
    return isinstance(extra, dict) and bool(extra.get("secret") or extra.get("url"))


def _deferred_field(model: type[BaseModel], name: str, deferred: AbstractSet[str]) -> bool:
    info = model.model_fields.get(name)
    if info is None:
        return False
    alias = info.validation_alias
    names = {name, *(alias.choices if isinstance(alias, AliasChoices) else ())}
    return bool(names & set(deferred))


def typed_values(raw: Mapping[str, Any], config: BaseModel | None) -> dict[str, Any]:
    """``raw`` (keys as written) with each declared setting replaced by its validated value
    (``"30"`` from a ``${{ VAR }}`` becomes ``30.0``); unknown keys stay as written."""
    out = dict(raw)
    if config is None:
        return out
    fields = type(config).model_fields
    for name in config.model_fields_set & set(fields):
        alias = fields[name].validation_alias
        names = alias.choices if isinstance(alias, AliasChoices) else [name]
        key = next((n for n in names if n in out), None)
        if key is None:
            continue
        value = getattr(config, name)
        out[key] = value.model_dump(exclude_none=True) if isinstance(value, BaseModel) else value
    return out
