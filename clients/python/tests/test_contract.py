"""The client's types against protocol/openrpc.json, the contract the
server's own tests hold it to: every method's result against the ``R`` its
wrapper is declared to answer (``Call[R]``, mostly TypedDicts of
larder.results), every server-to-client request and notification against
the TypedDict of its params, every code in x-error-codes against its error
class. A member added, removed, made optional or retyped on either side
fails here, naming where.

Both sides are compared as JSON: which members an object has, which of them
are required, and each member's JSON types (``integer`` is not ``number``),
down through nested objects, arrays and maps. A oneOf of objects reads as
one object whose members are required only where every branch requires
them, as a TypedDict can say. ``Any`` stands for a schema that gives no
members: any JSON, an object of any members, or a union of JSON types."""

from __future__ import annotations

import inspect
import json
import re
import sys
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, Union, get_args, get_origin, is_typeddict

import pytest

import larder
from conftest import REPO
from larder import results
from larder.aio import AsyncLarder
from larder.errors import LarderError, error_class
from larder.methods import Call

OPENRPC = json.loads((REPO / "protocol" / "openrpc.json").read_text())
SCHEMAS = OPENRPC["components"]["schemas"]


@dataclass
class Shape:
    """A value as JSON sees it. ``types`` holds JSON type names (``any``
    alone for any JSON); ``members`` an object's named members, each
    (required, shape); ``values`` the shape of an object's other members
    (None: no others); ``items`` an array's elements."""
    types: set[str]
    members: dict[str, tuple[bool, Shape]] = field(default_factory=dict)
    values: Shape | None = None
    items: Shape | None = None


ANY = Shape({"any"})


def merged(shapes: list[Shape]) -> Shape:
    """One shape for a value that may have any of ``shapes``."""
    if any(s.types == {"any"} for s in shapes):
        return ANY
    result = Shape(set().union(*(s.types for s in shapes)))
    objects = [s for s in shapes if "object" in s.types]
    names = {name for s in objects for name in s.members}
    for name in sorted(names):
        branches = [s.members.get(name) for s in objects]
        required = all(b is not None and b[0] for b in branches)
        result.members[name] = (required, merged([b[1] for b in branches if b is not None]))
    maps = [s.values for s in objects if s.values is not None]
    result.values = merged(maps) if maps else None
    arrays = [s.items for s in shapes if s.items is not None]
    result.items = merged(arrays) if arrays else None
    return result


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def schema_shape(schema: dict[str, Any], within: frozenset[str] = frozenset()) -> Shape:
    """The shape of a JSON Schema of openrpc.json. A schema met again inside
    itself (FieldType's arrays of FieldType) is any JSON there."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        return ANY if name in within else schema_shape(SCHEMAS[name], within | {name})
    if "oneOf" in schema and "type" not in schema and "properties" not in schema:
        return merged([schema_shape(branch, within) for branch in schema["oneOf"]])
    if "const" in schema:
        return Shape({json_type(schema["const"])})
    if "enum" in schema:
        return Shape({json_type(v) for v in schema["enum"]})
    kind = schema.get("type")
    if kind is None:
        if "properties" not in schema and "oneOf" not in schema:
            return ANY
        kind = "object"
    if isinstance(kind, list):
        return merged([schema_shape({**schema, "type": k}, within) for k in kind])
    if "oneOf" in schema:
        # {"type": "object", "oneOf": [...]}: branches that narrow one object
        # (which members are required, or each their own members).
        base = {k: v for k, v in schema.items() if k != "oneOf"}
        return merged([schema_shape(_narrowed(base, branch), within) for branch in schema["oneOf"]])
    if kind == "array":
        return Shape({"array"}, items=schema_shape(schema.get("items", {}), within))
    if kind != "object":
        return Shape({kind})
    shape = Shape({"object"})
    required = set(schema.get("required", []))
    for name, member in schema.get("properties", {}).items():
        shape.members[name] = (name in required, schema_shape(member, within))
    extra = schema.get("additionalProperties")
    if "patternProperties" in schema:
        shape.values = merged([schema_shape(s, within) for s in schema["patternProperties"].values()])
    elif extra is None and not shape.members:
        shape.values = ANY
    elif isinstance(extra, dict):
        shape.values = schema_shape(extra, within)
    return shape


def _narrowed(base: dict[str, Any], branch: dict[str, Any]) -> dict[str, Any]:
    """``base`` with a oneOf branch's properties and required members added."""
    result = {**base, **{k: v for k, v in branch.items() if k not in ("properties", "required")}}
    result["properties"] = {**base.get("properties", {}), **branch.get("properties", {})}
    result["required"] = sorted(set(base.get("required", [])) | set(branch.get("required", [])))
    if not result["properties"]:
        del result["properties"]
    return result


def params_schema(message: dict[str, Any]) -> dict[str, Any]:
    """A server-to-client message's by-name params as one object schema."""
    params = message.get("params", [])
    return {"type": "object", "additionalProperties": False,
            "required": [p["name"] for p in params if p.get("required")],
            "properties": {p["name"]: p.get("schema", {}) for p in params}}


PYTHON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null",
                # Base64 data, decoded by the client.
                bytes: "string"}


def client_shape(hint: Any) -> Shape:
    """The shape of a type annotation of the client."""
    if hint is Any:
        return ANY
    if hint is None:
        return Shape({"null"})
    origin = get_origin(hint)
    if origin is NotRequired:
        return client_shape(get_args(hint)[0])
    if origin in (Union, types.UnionType):
        return merged([client_shape(arg) for arg in get_args(hint)])
    if origin is Literal:
        return Shape({json_type(v) for v in get_args(hint)})
    if origin is list:
        return Shape({"array"}, items=client_shape(get_args(hint)[0]))
    if origin is dict:
        return Shape({"object"}, values=client_shape(get_args(hint)[1]))
    if is_typeddict(hint):
        shape = Shape({"object"})
        # Read from the annotations: with ``from __future__ import annotations``
        # Python 3.11 counts every key in __required_keys__.
        for name, member in typing.get_type_hints(hint, include_extras=True).items():
            shape.members[name] = (get_origin(member) is not NotRequired, client_shape(member))
        return shape
    if hint in PYTHON_TYPES:
        return Shape({PYTHON_TYPES[hint]})
    raise AssertionError(f"no JSON shape for the annotation {hint!r}")


def _types(shape: Shape) -> str:
    return "|".join(sorted(shape.types))


def differences(contract: Shape, client: Shape, path: str) -> list[str]:
    """Where ``client`` does not say what ``contract`` says, one line each."""
    if client.types == {"any"}:
        if contract.types == {"any"} or len(contract.types) > 1 or (contract.types == {"object"} and not contract.members):
            return []
        return [f"{path}: openrpc.json says {_types(contract)}, the client Any"]
    if contract.types == {"any"}:
        return [f"{path}: openrpc.json allows any JSON, the client only {_types(client)}"]
    if contract.types != client.types:
        return [f"{path}: openrpc.json says {_types(contract)}, the client {_types(client)}"]
    found: list[str] = []
    if "object" in contract.types:
        for name in sorted(contract.members.keys() - client.members.keys()):
            required = "required" if contract.members[name][0] else "optional"
            found.append(f"{path}.{name}: in openrpc.json ({required}), not in the client")
        for name in sorted(client.members.keys() - contract.members.keys()):
            if contract.values is None or contract.values.types != {"any"}:
                found.append(f"{path}.{name}: in the client, not in openrpc.json")
        for name in sorted(contract.members.keys() & client.members.keys()):
            (need, want), (has, got) = contract.members[name], client.members[name]
            if need != has:
                found.append(f"{path}.{name}: openrpc.json has it {'required' if need else 'optional'}, "
                             f"the client {'required' if has else 'NotRequired'}")
            found += differences(want, got, f"{path}.{name}")
        if contract.values is None and client.values is not None:
            found.append(f"{path}: openrpc.json names its members, the client has a dict of any names")
        elif contract.values is not None and client.values is None and not (client.members and contract.values == ANY):
            found.append(f"{path}: openrpc.json allows members of any name, the client only those it names")
        elif contract.values is not None and client.values is not None:
            found += differences(contract.values, client.values, f"{path}[*]")
    if "array" in contract.types and contract.items is not None and client.items is not None:
        found += differences(contract.items, client.items, f"{path}[]")
    return found


# The class whose methods wrap each namespace's methods; a wrapper is named
# as its method in snake_case, but for these, whose namesakes give the value
# alone.
NAMESPACES = {
    "cache": larder.CacheMethods, "entity": larder.EntityMethods, "migrate": larder.MigrateMethods,
    "object": larder.ObjectMethods, "schema": larder.SchemaMethods, "store": larder.StoreMethods,
    "lock": larder.LockMethods,
}
WHOLE_RESULT = {"cache.get": "entry", "cache.getOrFetch": "entry_or_fetch"}

# Wrappers that give one member of the result.
UNWRAPPED = {"entity.count": "count", "entity.parse": "record", "entity.render": "record"}

# Methods of the session rather than a namespace, on each client: their
# result types are their return annotations.
SESSION = {"initialize", "shutdown"}
SESSION_CLIENTS = (larder.Larder, AsyncLarder)

# Methods the client has no typed wrapper for, and why.
UNTYPED = {
    "cache.increment": "not wrapped yet, called through call()",
    "debug.advanceClock": "a test method (--enable-test-methods), called through call()",
    "debug.ask": "a test method (--enable-test-methods), called through call()",
    "rpc.discover": "answers openrpc.json itself, whose type is OpenRPC's meta-schema",
}

# What a handler of each server-to-client request or notification is given.
SERVER_MESSAGES: dict[str, Any] = {
    "$/cancelRequest": results.CancelParams,
    "$/progress": results.ProgressParams,
    "cache.cleared": results.ClearedEvent,
    "cache.evicted": results.EvictedEvent,
    "cache.fallback": results.FallbackParams,
    "cache.fetch": results.FetchParams,
    "cache.removed": results.RemovedEvent,
    "migrate.object": results.MigrateObjectParams,
}

METHODS = {m["name"]: m for m in OPENRPC["methods"]}
SERVER_TO_CLIENT = {m["name"]: m for m in OPENRPC["x-notifications"] + OPENRPC["x-server-requests"]
                    if m.get("direction") == "server-to-client"}


def result_type(method: str) -> Any:
    """What the client declares ``method`` to answer: the ``R`` of its
    wrapper's ``Call[R]``, or KeyError when it has no wrapper."""
    if method in SESSION:
        declared = {session_result(client, method) for client in SESSION_CLIENTS}
        assert len(declared) == 1, f"the clients declare {method} to answer different types: {declared}"
        return declared.pop()
    namespace, name = method.split(".", 1)
    wrapper = getattr(NAMESPACES[namespace], WHOLE_RESULT.get(method) or re.sub(r"([A-Z])", r"_\1", name).lower(), None)
    if wrapper is None:
        raise KeyError(method)
    # The return annotation alone: typing.get_type_hints would evaluate the
    # params' too, some of which are imported only for the type checker.
    declared = eval(wrapper.__annotations__["return"], wrapper.__globals__)
    assert get_origin(declared) is Call, f"{wrapper.__qualname__} returns {declared}, not Call[...]"
    return get_args(declared)[0]


def session_result(client: type, method: str) -> Any:
    """The return annotation of ``client``'s session method (``close``
    stands for ``shutdown``, which it sends), evaluated where it is written."""
    wrapper = getattr(client, "close" if method == "shutdown" else method)
    if method == "shutdown":
        return None
    declared = inspect.signature(wrapper).return_annotation
    if isinstance(declared, str):
        declared = eval(declared, vars(sys.modules[wrapper.__module__]))
    return declared


def test_every_method_has_a_typed_wrapper():
    missing = []
    for method in sorted(METHODS.keys() - UNTYPED.keys()):
        try:
            result_type(method)
        except KeyError:
            missing.append(method)
    assert missing == [], "methods of openrpc.json without a wrapper, nor a reason in UNTYPED"
    assert sorted(UNTYPED.keys() - METHODS.keys()) == [], "not methods of openrpc.json"


@pytest.mark.parametrize("method", sorted(METHODS.keys() - UNTYPED.keys()))
def test_result_type_is_the_contracts(method):
    contract = schema_shape(METHODS[method]["result"]["schema"])
    declared = result_type(method)
    path = f"{method} result"
    if method in UNWRAPPED:
        member = UNWRAPPED[method]
        assert contract.members.get(member, (False,))[0], f"{path} has no required {member} to unwrap"
        contract, path = contract.members[member][1], f"{path}.{member}"
    found = differences(contract, client_shape(declared), path)
    assert not found, f"{getattr(declared, '__name__', declared)} is not {method}'s result:\n" + "\n".join(found)


def test_every_server_message_has_a_params_type():
    assert sorted(SERVER_TO_CLIENT.keys() - SERVER_MESSAGES.keys()) == [], \
        "server-to-client messages of openrpc.json without a params type in results.py"
    assert sorted(SERVER_MESSAGES.keys() - SERVER_TO_CLIENT.keys()) == [], "not server-to-client messages of openrpc.json"


@pytest.mark.parametrize("message", sorted(SERVER_MESSAGES))
def test_server_message_params_are_the_contracts(message):
    declared = SERVER_MESSAGES[message]
    found = differences(schema_shape(params_schema(SERVER_TO_CLIENT[message])), client_shape(declared), f"{message} params")
    assert not found, f"results.{declared.__name__} is not {message}'s params:\n" + "\n".join(found)


def test_every_type_checked_here_is_exported():
    declared = [result_type(m) for m in METHODS.keys() - UNTYPED.keys()]
    checked = {t.__name__ for t in [*declared, *SERVER_MESSAGES.values()] if is_typeddict(t)}
    assert sorted(checked - set(results.__all__)) == []


ERROR_CODES = {e["code"]: e["name"] for e in OPENRPC["x-error-codes"]}


@pytest.mark.parametrize("code", sorted(ERROR_CODES))
def test_error_code_has_its_class(code):
    cls = error_class(code)
    name = ERROR_CODES[code]
    assert cls is not LarderError, f"no error class for {code} ({name} in openrpc.json's x-error-codes)"
    # The class is the code's name, with Error added where the name alone is
    # not an error's (EncryptionKey, Integrity).
    assert cls.__name__ in (name, name + "Error"), f"{code} is {name} in openrpc.json, {cls.__name__} here"
    assert cls.CODE == code and getattr(larder, cls.__name__) is cls


def test_no_error_class_for_a_code_the_protocol_lacks():
    classes = {cls.CODE: cls.__name__ for cls in vars(larder).values()
               if isinstance(cls, type) and issubclass(cls, LarderError) and cls.CODE is not None}
    assert sorted(set(classes) - set(ERROR_CODES)) == [], "codes not in openrpc.json's x-error-codes"


def test_a_drift_is_named_where_it_is():
    """The check reads what it must: a member dropped, made optional and
    retyped in a copy of a TypedDict are each named by their path."""
    drifted = typing.TypedDict("drifted", {"cache": str, "created": NotRequired[bool], "config": str})
    found = differences(schema_shape(METHODS["cache.open"]["result"]["schema"]), client_shape(drifted), "cache.open result")
    assert found == [
        "cache.open result.storeBudget: in openrpc.json (optional), not in the client",
        "cache.open result.config: openrpc.json says object, the client string",
        "cache.open result.created: openrpc.json has it required, the client NotRequired",
    ]
