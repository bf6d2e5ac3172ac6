"""Measure spec strings: ``name`` or ``name:key=value,key=value``.

``vectors:path=cc.ru.vec,format=word2vec,oov=backoff`` names the measure ``vectors`` with three
parameters. Values are strings here; each measure converts and checks its own, and records the
resolved values (defaults filled in) with every result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from simeval.data.textio import INTEGER, SHOWN, parse_float, shown
from simeval.errors import InputError


def _cut(text: str) -> str:
    """``text`` unquoted, cut to :data:`SHOWN` characters: a long spec never hides the reason
    at the end of its message (messages are cut at :attr:`InputError.LIMIT`)."""
    return text if len(text) <= SHOWN else f"{text[:SHOWN]}… ({len(text):,} chars)"


@dataclass(frozen=True)
class MeasureSpec:
    name: str
    params: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in self.params.items())


def parse_spec(text: str) -> MeasureSpec:
    """Parse ``name[:key=value,...]``; a malformed spec raises :class:`InputError`."""
    name, _, rest = text.strip().partition(":")
    if not name or not name.replace("-", "").replace("_", "").isalnum():
        raise InputError(None, None, f"measure spec {shown(text)}: expected name[:key=value,...]")
    params: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise InputError(
                None, None, f"measure spec {shown(text)}: {shown(item)} is not key=value"
            )
        if key.strip() in params:
            raise InputError(
                None, None, f"measure spec {shown(text)}: {shown(key.strip())} given twice"
            )
        params[key.strip()] = value.strip()
    return MeasureSpec(name, params)


class Params:
    """Typed access to a spec's parameters; unknown keys are refused when :meth:`done` runs."""

    def __init__(self, spec: MeasureSpec) -> None:
        self.spec = spec
        self.raw = dict(spec.params)
        self.resolved: dict[str, Any] = {}
        self.named = _cut(str(spec))  # as messages name it

    def _fail(self, key: str, expected: str) -> InputError:
        return InputError(
            None, None, f"measure {self.named}: {key}={shown(self.raw[key])}, expected {expected}"
        )

    def get(
        self,
        key: str,
        default: Any,
        kind: type = str,
        choices: tuple | None = None,
        minimum: float | None = None,
        above: float | None = None,
        maximum: float | None = None,
    ) -> Any:
        """The value of ``key`` converted to ``kind`` (``bool`` accepts true/false/1/0); a
        number must be finite and within ``minimum`` ≤ value (``above`` < value) ≤ ``maximum``."""
        if key not in self.raw:
            value = default
        elif kind is bool:
            text = self.raw[key].lower()
            if text not in ("true", "false", "1", "0", "yes", "no"):
                raise self._fail(key, "true or false")
            value = text in ("true", "1", "yes")
        elif kind in (int, float):
            value = self._number(key, kind)
        else:
            try:
                value = kind(self.raw[key])
            except ValueError:
                raise self._fail(key, kind.__name__) from None
        if choices is not None and value not in choices and key in self.raw:
            raise self._fail(key, "one of " + ", ".join(map(str, choices)))
        if key in self.raw and kind in (int, float):
            self._check_range(key, value, kind, minimum, above, maximum)
        self.resolved[key] = value
        return value

    def _number(self, key: str, kind: type) -> float:
        """``key``'s value read as the file readers read a number (:func:`~simeval.data.
        textio.parse_float`; an int: ASCII digits, of any size, the range check bounds it):
        no ``1_0``, no other script's digits, no ``1e3`` for an int. NaN and inf come back as
        floats for the range check, which names them as not finite."""
        text = self.raw[key]
        if kind is int:
            if INTEGER.fullmatch(text.strip()):
                return int(text)  # of any size: the range check names the bounds
            raise self._fail(key, "int")
        try:
            return parse_float(text, None, None, key)
        except InputError:
            pass
        if kind is float and text.strip().lower().lstrip("+-") in ("nan", "inf", "infinity"):
            return float(text)
        raise self._fail(key, kind.__name__)

    def _check_range(
        self,
        key: str,
        value: float,
        kind: type,
        minimum: float | None,
        above: float | None,
        maximum: float | None,
    ) -> None:
        bounds = [f"≥ {minimum}"] if minimum is not None else []
        bounds += [f"> {above}"] if above is not None else []
        bounds += [f"≤ {maximum}"] if maximum is not None else []
        noun = "an integer" if kind is int else "a finite number"
        if (
            not math.isfinite(value)
            or (minimum is not None and value < minimum)
            or (above is not None and value <= above)
            or (maximum is not None and value > maximum)
        ):
            raise self._fail(key, " ".join([noun, " and ".join(bounds)]).strip())

    def done(self) -> dict[str, Any]:
        """The resolved parameters; raises for keys that no one asked for."""
        unknown = sorted(set(self.raw) - set(self.resolved))
        if unknown:
            known = ", ".join(self.resolved) or "none"
            raise InputError(
                None,
                None,
                f"measure {self.named}: unknown parameter(s) {_cut(', '.join(unknown))} "
                f"(known: {known})",
            )
        return self.resolved
