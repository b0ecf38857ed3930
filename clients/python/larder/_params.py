"""How keywords become the protocol's params, and how bytes travel in them:
the helpers every method class and both clients share. A leaf: it imports
nothing from the package, so any module may import it.

Keywords are snake_case (``returns_expired``) and sent camelCase
(``returnsExpired``), ``None`` ones left out so that the server's default
applies; only the top-level names are renamed, never the keys of the
caller's own data. ``bytes`` go out as base64 text (``data``) and come back
as ``bytes``.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

__all__ = ["ABSENT", "BytesLike", "MISSING", "Sentinel", "camel", "camel_keys", "camel_params", "decode_entries", "decode_entry",
           "encode_data", "value_of"]


class Sentinel:
    """A marker that is not ``None``, false as a condition, named by its repr."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name

    def __bool__(self) -> bool:
        return False


#: "Not given" (``None`` is a real JSON value for ``value=``).
MISSING: Any = Sentinel("MISSING")


#: A ``default`` that no stored value can be: what ``cache.get`` gives back
#: for a miss where ``None`` could be a stored JSON ``null``.
ABSENT: Any = Sentinel("ABSENT")

#: The types sent as ``data`` (base64) rather than as a JSON ``value``.
BytesLike = (bytes, bytearray, memoryview)


def camel(name: str) -> str:
    """``returns_expired`` → ``returnsExpired``; camelCase passes through."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def camel_keys(obj: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a parameter object with its snake_case keys turned camelCase
    and ``None`` members dropped. Only the top-level keys are renamed: the
    values, nested objects included, are sent as given (they may be the
    caller's own data, whose keys must not change)."""
    return {camel(k): v for k, v in obj.items() if v is not None}


def camel_params(**kw: Any) -> dict[str, Any]:
    """Protocol params from keywords: camelCase names, ``None`` left out."""
    return {camel(k): v for k, v in kw.items() if v is not None}


def encode_data(data: Any) -> str:
    """Base64 text for ``data``: ``bytes``-like only."""
    if not isinstance(data, BytesLike):
        raise TypeError(f"data must be bytes, bytearray or memoryview, not {type(data).__name__}")
    return base64.b64encode(bytes(data)).decode("ascii")


def decode_entry(entry: Any) -> Any:
    """A ``cache.get`` answer with ``data`` decoded to bytes."""
    if isinstance(entry, dict) and isinstance(entry.get("data"), str):
        entry = dict(entry)
        entry["data"] = base64.b64decode(entry["data"])
    return entry


def decode_entries(result: Any) -> Any:
    """A ``cache.getMany`` answer with every ``data`` decoded to bytes."""
    if isinstance(result, dict) and isinstance(result.get("entries"), dict):
        result = dict(result)
        result["entries"] = {k: decode_entry(v) for k, v in result["entries"].items()}
    return result


def value_of(entry: Any, default: Any = None) -> Any:
    """What ``cache.get`` found: its ``value``, its ``data`` as bytes, or
    ``default`` when it found nothing."""
    if not entry.get("found"):
        return default
    if "value" in entry:
        return entry["value"]
    data = entry.get("data")
    if isinstance(data, str):
        return base64.b64decode(data)
    return data if isinstance(data, bytes) else default
