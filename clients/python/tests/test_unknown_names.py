"""A misspelt name never succeeds silently: unknown members and methods come
back from the server as InvalidParams / MethodNotFound with their data, and
the mappings the client converts reach it as written."""

from __future__ import annotations

import pytest

import larder
from larder.errors import error_from_json

from conftest import TEST_ARGS


def test_unknown_member_via_call(db):
    with pytest.raises(larder.InvalidParams) as info:
        db.call("cache.set", {"key": "k", "value": 1, "tll": 5})
    e = info.value
    assert e.code == -32602
    assert e.message == "Invalid params: unknown member params.tll (did you mean ttl?)"
    assert e.data == {"path": "params.tll",
                      "expected": ["cache", "group", "key", "value", "data", "ttl", "ifRevision", "ifAbsent"],
                      "suggestion": "ttl"}
    assert (e.path, e.suggestion) == ("params.tll", "ttl")
    assert e.expected == ["cache", "group", "key", "value", "data", "ttl", "ifRevision", "ifAbsent"]
    assert db.cache.entry("k") == {"found": False}


def test_unknown_member_without_a_suggestion(db):
    with pytest.raises(larder.InvalidParams) as info:
        db.call("cache.get", {"key": "k", "colour": "red"})
    e = info.value
    assert e.path == "params.colour" and e.suggestion is None
    assert "did you mean" not in e.message and "suggestion" not in e.data


def test_misspelt_limit_in_cache_open_changes_nothing(db):
    db.cache.open("c", memory={"max_count": 7})
    with pytest.raises(larder.InvalidParams) as info:
        db.cache.open("c", memory={"max_cont": 5}, lifespan=60)
    e = info.value
    assert "params.memory.max_cont" in e.message and "did you mean maxCount?" in e.message
    assert (e.path, e.suggestion) == ("params.memory.max_cont", "maxCount")
    assert e.expected == ["maxCount", "maxBytes"]
    config = db.cache.open("c")["config"]
    assert config["memory"]["maxCount"] == 7 and config["lifespan"] == 0


def test_limits_are_sent_as_written_unless_known(db):
    # A snake_case typo is not renamed into something else: the server names it as written.
    with pytest.raises(larder.InvalidParams) as info:
        db.cache.open("d", disk={"max_cnt": 5})
    assert info.value.path == "params.disk.max_cnt" and info.value.suggestion == "maxCount"
    with pytest.raises(larder.InvalidParams) as info:
        db.cache.open("d", disk={"max_cnt": None})  # a None under an unknown name is still refused
    assert info.value.path == "params.disk.max_cnt"
    assert all(c["name"] != "d" for c in db.cache.list()["caches"])
    config = db.cache.open("d", memory={"max_count": 3, "max_bytes": None}, disk={"maxBytes": 1000})["config"]
    assert config["memory"] == {"maxCount": 3, "maxBytes": 67108864}
    assert config["disk"] == {"maxCount": 0, "maxBytes": 1000}
    with pytest.raises(TypeError, match="memory must be a mapping"):
        db.cache.open("d", memory=5)  # type: ignore[arg-type]


def test_misspelt_member_in_set_many_stores_nothing(db):
    with pytest.raises(larder.InvalidParams) as info:
        db.cache.set_many([{"key": "a", "value": 1}, {"key": "b", "value": 2, "tll": 5}])
    assert (info.value.path, info.value.suggestion) == ("params.entries[1].tll", "ttl")
    with pytest.raises(larder.InvalidParams) as info:
        db.cache.set_many([{"key": "a", "valeu": 1}])
    assert (info.value.path, info.value.suggestion) == ("params.entries[0].valeu", "value")
    assert all(not e["found"] for e in db.cache.get_many(["a", "b"])["entries"].values())
    assert db.cache.list()["caches"] == []


def test_typed_keyword_typo_sends_nothing(db):
    with pytest.raises(TypeError):
        db.cache.set("k", 1, tll=5)  # type: ignore[call-arg]
    assert db.cache.entry("k") == {"found": False}


def test_unknown_method_with_a_suggestion(db):
    with pytest.raises(larder.MethodNotFound) as info:
        db.call("cache.gett", {"key": "k"})
    e = info.value
    assert e.code == -32601
    assert e.message == "Method not found: cache.gett (did you mean cache.get?)"
    assert e.data == {"method": "cache.gett", "suggestion": "cache.get"}
    assert (e.method, e.suggestion) == ("cache.gett", "cache.get")
    with pytest.raises(larder.MethodNotFound) as info:
        db.namespace("cache").purge_expird()
    assert info.value.suggestion == "cache.purgeExpired"


def test_unknown_method_without_a_suggestion(db):
    with pytest.raises(larder.MethodNotFound) as info:
        db.call("nothing.close")
    e = info.value
    assert e.message == "Method not found: nothing.close"
    assert e.data is None and e.method is None and e.suggestion is None


def test_pipeline_keeps_the_error_of_a_misspelt_call(db):
    with db.pipeline(raise_on_error=False) as p:
        p.cache.set("p1", 1)
        p.call("cache.set", {"key": "p2", "value": 2, "cahce": "x"})
    ok, refused = p.results
    assert ok["stored"] is True
    assert isinstance(refused, larder.InvalidParams) and refused.suggestion == "cache"
    assert db.cache.entry("p2")["found"] is False


def test_namespace_sends_nested_values_as_given(db):
    value = {"first_name": "Ada", "nested": {"snake_case": [1, {"a_b": None}]}}
    cache = db.namespace("cache")
    cache.set(key="n", value=value)
    assert db.cache.entry("n")["value"] == value
    with pytest.raises(larder.InvalidParams) as info:
        cache.set(key="n", value=1, tll=5)
    assert info.value.suggestion == "ttl"


def test_values_and_records_are_never_renamed(db):
    db.cache.set("v", {"snake_key": 1, "camelKey": {"inner_key": None}})
    assert db.cache.entry("v")["value"] == {"snake_key": 1, "camelKey": {"inner_key": None}}
    db.entity.define("People", [{"name": "Person", "attributes": {"id": "string", "firstName": "string?"}}],
                     casing="snake_case")
    db.entity.upsert("Person", [{"id": "p1", "first_name": "Ada"}])
    assert db.entity.get("Person", "p1")["record"] == {"id": "p1", "first_name": "Ada"}
    with pytest.raises(larder.InvalidParams, match="frist_name"):
        db.entity.upsert("Person", [{"id": "p2", "frist_name": "Bo"}])
    assert db.entity.get("Person", "p2") == {"found": False}
    with pytest.raises(larder.InvalidParams) as info:
        db.entity.query("Person", where={"first_name": {"isnull": True}})
    assert (info.value.path, info.value.suggestion) == ("params.where.first_name.isnull", "isNull")


def test_misspelt_definition_member(db):
    with pytest.raises(larder.InvalidParams) as info:
        db.entity.define("M", [{"name": "A", "atributes": {"id": "string"}}])
    assert (info.value.path, info.value.suggestion) == ("params.entities[0].atributes", "attributes")
    with pytest.raises(larder.InvalidParams) as info:
        db.schema.register("T", "1", {"a": "string"}, migrations=[{"from": "0", "stpes": []}])
    assert info.value.suggestion == "steps"
    assert db.entity.models()["models"] == [] and db.schema.list()["types"] == []


def test_initialize_sends_lsp_members_with_values_as_given(binary):
    with larder.Larder.spawn(memory=True, binary=binary, args=TEST_ARGS, initialize=False, timeout=60) as db:
        result = db.initialize(process_id=1234, initialization_options={"snake_key": {"inner_key": 1}})
        assert result["protocolVersion"]
    with larder.Larder.spawn(memory=True, binary=binary, args=TEST_ARGS, initialize=False, timeout=60) as db:
        with pytest.raises(larder.InvalidParams) as info:
            db.initialize(proces_id=1234)
        assert (info.value.path, info.value.suggestion) == ("params.procesId", "processId")


def test_properties_read_data_only_when_it_is_an_object():
    e = error_from_json({"code": -32602, "message": "Invalid params: missing required parameter params.key"})
    assert type(e) is larder.InvalidParams
    assert e.path is None and e.expected is None and e.suggestion is None
    e = error_from_json({"code": -32601, "message": "m", "data": "not an object"})
    assert e.method is None and e.suggestion is None
