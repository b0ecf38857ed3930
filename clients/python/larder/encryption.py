"""Keys for encrypted caches, checked here before they are sent.

A key is 32 bytes: ``bytes`` (or ``bytearray``, ``memoryview``) of that
length, or their standard base64 as a ``str``. The server would refuse any
other with :class:`~larder.InvalidParams`; checked here, the error names the
argument at fault before anything is sent.
"""

from __future__ import annotations

import base64
import binascii
from typing import Mapping, TypeAlias

__all__ = ["Key", "KEY_BYTES", "encode_key", "encryption_params"]

#: A key's length in bytes (AES-256).
KEY_BYTES = 32

#: What may be given as a key: its 32 bytes, or their base64.
Key: TypeAlias = bytes | bytearray | memoryview | str


def encode_key(key: Key, name: str) -> str:
    """``key`` as the protocol takes it: standard padded base64 of 32 bytes.
    Raises :class:`TypeError` for anything but bytes or a ``str``, and
    :class:`ValueError` for bytes of another length or a ``str`` that is
    not base64 of 32 bytes; ``name`` is the argument the message names."""
    if isinstance(key, (bytes, bytearray, memoryview)):
        raw = bytes(key)
        if len(raw) != KEY_BYTES:
            raise ValueError(f"{name} must be {KEY_BYTES} bytes, not {len(raw)}")
        return base64.b64encode(raw).decode("ascii")
    if not isinstance(key, str):
        raise TypeError(f"{name} must be {KEY_BYTES} bytes or their base64 as a str, not {type(key).__name__}")
    try:
        raw = base64.b64decode(key.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(f"{name} is not standard base64 (A-Z, a-z, 0-9, +, / and = padding)") from None
    if len(raw) != KEY_BYTES:
        raise ValueError(f"{name} must be base64 of {KEY_BYTES} bytes, not of {len(raw)}")
    return base64.b64encode(raw).decode("ascii")


def encryption_params(key: Key | None, keys: Mapping[str, Key] | None) -> dict[str, object] | None:
    """``initialize``'s ``encryption``: ``{"key"?, "keys"?}`` from a key for
    every encrypted cache and keys for named ones, or ``None`` when neither
    is given."""
    params: dict[str, object] = {}
    if key is not None:
        params["key"] = encode_key(key, "encryption_key")
    if keys is not None:
        if not isinstance(keys, Mapping):
            raise TypeError(f"encryption_keys must be a mapping of cache name to key, not {type(keys).__name__}")
        named: dict[str, str] = {}
        for cache, value in keys.items():
            if not isinstance(cache, str):
                raise TypeError(f"encryption_keys: cache names must be str, not {type(cache).__name__}")
            named[cache] = encode_key(value, f"encryption_keys[{cache!r}]")
        params["keys"] = named
    return params or None
