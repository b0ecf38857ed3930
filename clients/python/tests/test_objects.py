"""schema.*, object.*, migrate.run and migrate.object callbacks against the real server."""

from __future__ import annotations

import threading

import time

import pytest

import larder
from conftest import TEST_ARGS, missing

FOO_1_0_0 = {"string": "I am a foo!", "date": "2017-02-06T16:03:40Z", "integer": 1, "array": ["a", "b"],
             "barObject": {"string": "bar string", "date": "2017-01-01T00:00:00Z"}}
FOO_1_0_2 = {"changeNameString": "I am a foo!", "date": 1486397020, "addString": "bar string"}


def register_hmcache(db):
    """HMCache's README scenario: FooObject 1.0.0 → 1.0.1 → 1.0.2."""
    assert db.schema.register("Bar", "1.0.0", {"string": "string", "date": "date"}) == {
        "type": "Bar", "version": "1.0.0", "created": True}
    db.schema.register("FooObject", "1.0.0", {"string": "string", "date": "date", "integer": "integer",
                                              "array": {"array": "string"}, "barObject": {"ref": "Bar"}})
    assert db.object.put("foo", "FooObject", FOO_1_0_0) == {"stored": True, "type": "FooObject", "version": "1.0.0",
                                                            "revision": 1}
    db.schema.register(
        "FooObject", "1.0.1",
        {"changeNameString": "string", "date": "number", "array": {"array": "string"}, "addString": "string"},
        migrations=[{"from": "1.0.0", "steps": [
            {"op": "rename", "from": "string", "to": "changeNameString"},
            {"op": "convert", "field": "date", "to": "epochSeconds"},
            {"op": "remove", "field": "integer"},
            {"op": "move", "from": "barObject.string", "to": "addString"},
            {"op": "remove", "field": "barObject"},
        ]}],
    )
    db.schema.register("FooObject", "1.0.2", {"changeNameString": "string", "date": "number", "addString": "string"},
                       migrations=[{"from": ["1.0.1"], "steps": [{"op": "remove", "field": "array"}]}])


def note_v1_v2_callback(db, keys=()):
    """Note 1 {n, mode}; objects under ``keys``; Note 2 whose migration asks the client."""
    db.schema.register("Note", "1", {"n": "integer", "mode": "string"})
    for key, mode in keys:
        db.object.put(key, "Note", {"n": 1, "mode": mode})
    db.schema.register("Note", "2", {"n": "integer", "mode": "string"},
                       migrations=[{"from": "1", "steps": [{"op": "callback"}]}])


@pytest.fixture
def cdb(binary):
    """A sidecar whose client answers migrate.object (declared through on_migrate=)."""
    handler = Handler()
    with larder.Larder.spawn(memory=True, binary=binary, args=TEST_ARGS, timeout=60, on_migrate=handler) as d:
        d.handler = handler
        yield d


class Handler:
    """A migrate.object handler whose behaviour each test chooses by the value's ``mode``."""

    def __init__(self) -> None:
        self.calls: list[dict] = []
        self.fail_modes = {"fail", "crash"}

    def __call__(self, params):
        self.calls.append(params)
        value = params["value"]
        mode = value.get("mode")
        if mode == "drop":
            return larder.DROP
        if mode in self.fail_modes:
            if mode == "crash":
                raise ValueError("the handler crashed")
            raise larder.RequestFailed("cannot migrate this one", data={"key": params["key"]})
        return {**value, "n": value["n"] * 10}


# -- the HMCache scenario ---------------------------------------------------

def test_hmcache_scenario(db):
    register_hmcache(db)
    got = db.object.get("foo")
    assert got == {"found": True, "type": "FooObject", "version": "1.0.2", "value": FOO_1_0_2, "migratedFrom": "1.0.0",
                   "revision": 2}
    # Written back (a new revision): the next read needs no migration.
    assert db.object.get("foo") == {"found": True, "type": "FooObject", "version": "1.0.2", "value": FOO_1_0_2,
                                    "revision": 2}
    assert db.object.get("foo", type="FooObject")["value"] == FOO_1_0_2
    assert db.object.describe("foo") == {"description": {"*FooObject": FOO_1_0_2}}
    hashed = db.object.hash("foo")
    assert hashed["algorithm"] == "fnv1a64-canonical-json" and len(hashed["hash"]) == 16
    assert db.object.hash(type="FooObject", value=dict(reversed(list(FOO_1_0_2.items())))) == hashed
    assert db.object.equals("foo", {"type": "FooObject", "value": FOO_1_0_2}) == {"equal": True}
    assert db.schema.list() == {"types": [
        {"type": "Bar", "versions": ["1.0.0"], "newest": "1.0.0"},
        {"type": "FooObject", "versions": ["1.0.0", "1.0.1", "1.0.2"], "newest": "1.0.2"},
    ]}
    reports = []
    counts = db.migrate.run(progress=reports.append)
    assert counts == {"examined": 1, "migrated": 0, "upToDate": 1, "failed": 0, "dropped": 0, "failures": []}
    assert [r["kind"] for r in reports][0] == "begin" and reports[-1]["kind"] == "end"
    with pytest.raises(larder.SchemaConflict) as e:
        db.schema.register("FooObject", "1.0.2", {"x": "string"})
    assert e.value.code == -31020 and e.value.data == {"type": "FooObject", "version": "1.0.2"}


def test_hmcache_objects_written_at_every_version(db):
    register_hmcache(db)
    db.object.put("at 1.0.2", "FooObject", {"changeNameString": "new", "date": 1.5, "addString": "x"})
    assert "migratedFrom" not in db.object.get("at 1.0.2")
    # Stored as 1.0.0 until read: cache.get shows the stored (unmigrated) object.
    raw = db.cache.entry("foo")
    assert raw["version"] == "1.0.0" and raw["value"]["integer"] == 1


# -- schemas ------------------------------------------------------------------

def test_schema_register_get_list_extend_remove(db):
    assert db.schema.register("Animal", "1", {"name": "string", "born": "date?"})["created"] is True
    dog = {"breed": "string", "good": {"type": "bool", "default": True}, "owner": {"optional": {"ref": "Person"}}}
    assert db.schema.register("Dog", "2.1", dog, parent="Animal", extensions={"Show": {"prize": "string"}}) == {
        "type": "Dog", "version": "2.1", "created": True}
    # The same definition again is accepted and changes nothing.
    assert db.schema.register("Dog", "2.1", dog, parent="Animal", extensions={"Show": {"prize": "string"}})["created"] is False
    got = db.schema.get("Dog")
    assert got == {"schema": {"type": "Dog", "version": "2.1", "fields": dog, "parent": "Animal",
                              "extensions": {"Show": {"prize": "string"}}}, "versions": ["2.1"]}
    db.schema.register("Dog", "3", {**dog, "chip": "string?"}, parent="Animal")
    assert db.schema.get("Dog")["versions"] == ["2.1", "3"]
    assert db.schema.get("Dog")["schema"]["version"] == "3"
    assert db.schema.get("Dog", version="2.1")["schema"]["extensions"] == {"Show": {"prize": "string"}}
    extended = db.schema.extend("Dog", "Tricks", {"trick": "string"})
    assert extended["schema"]["version"] == "3" and extended["schema"]["extensions"] == {"Tricks": {"trick": "string"}}
    listed = {t["type"]: t for t in db.schema.list()["types"]}
    assert listed["Dog"] == {"type": "Dog", "versions": ["2.1", "3"], "newest": "3", "parent": "Animal"}
    assert db.schema.remove("Dog") == {"removed": 2}
    with pytest.raises(larder.SchemaNotFound) as e:
        db.schema.get("Dog")
    assert e.value.code == -31021 and e.value.data == {"type": "Dog"}
    with pytest.raises(larder.SchemaNotFound):
        db.schema.remove("Dog")
    with pytest.raises(larder.SchemaNotFound):
        db.schema.extend("Dog", "Tricks", {"x": "string"})


def test_schema_extend_without_a_category_name(db):
    # HMCache's registerPropertyName: without a category name.
    db.schema.register("Person", "1", {"name": "string"})
    db.schema.extend("Person", "Club", {"club": "string"})
    assert db.schema.extend("Person", None, {"nick": "string"})["schema"]["extensions"] == {
        "Club": {"club": "string"}, "": {"nick": "string"}}
    assert db.schema.extend("Person", "", {"mood": "string"})["schema"]["extensions"][""] == {
        "nick": "string", "mood": "string"}
    assert db.object.describe(type="Person", value={"name": "Bo", "nick": "B", "club": "C"}) == {"description": {
        "*Person": {"name": "Bo", "(Club)club": "C", "nick": "B", "mood": None}}}


def test_a_subtype_where_its_parent_is_declared_and_null_as_unset(db):
    # HMCache's dictionary of a FooObject and a SubFooObject.
    db.schema.register("Foo", "1", {"string": "string", "date": "date?"})
    db.schema.register("SubFoo", "1", {"number": "integer"}, parent="Foo")
    db.schema.register("Shelf", "1", {"byKey": {"map": {"ref": "Foo"}}})
    value = {"byKey": {"1": {"string": "a"}, "2": {"$type": "SubFoo", "string": "b", "number": 123}}}
    db.object.put("s", "Shelf", value)
    assert db.object.get("s")["value"] == value
    assert db.object.describe("s")["description"]["*Shelf"]["byKey"]["2"] == {
        "*SubFoo": {"number": 123, "**Foo": {"string": "b", "date": None}}}
    with pytest.raises(larder.InvalidObject) as e:
        db.object.put("t", "Shelf", {"byKey": {"1": {"$type": "SubFo", "string": "a", "number": 1}}})
    assert e.value.data == {"path": "value.byKey.1.$type", "reason": 'no type "SubFo" is registered (did you mean SubFoo?)'}
    # A nil property and one never set are the same state.
    nil = {"type": "Foo", "value": {"string": "a", "date": None}}
    unset = {"type": "Foo", "value": {"string": "a"}}
    assert db.object.equals(nil, unset) == {"equal": True}
    assert db.object.hash(**nil) == db.object.hash(**unset)


def test_schema_errors(db):
    db.schema.register("Person", "1", {"name": "string"})
    with pytest.raises(larder.SchemaConflict):
        db.schema.register("Person", "1.0", {"name": "string", "age": "integer"})
    with pytest.raises(larder.InvalidParams, match="not a version"):
        db.schema.register("Person", "x.1", {})
    with pytest.raises(larder.InvalidParams, match="unknown type"):
        db.schema.register("Person", "2", {"name": "strnig"})
    with pytest.raises(larder.InvalidParams, match="older version"):
        db.schema.register("Person", "2", {"name": "string"}, migrations=[{"from": "3", "steps": []}])
    with pytest.raises(larder.InvalidParams, match="already has a field"):
        db.schema.extend("Person", "More", {"name": "string"})
    with pytest.raises(larder.RequestFailed, match="no version 7"):
        db.schema.get("Person", version="7")


# -- objects ------------------------------------------------------------------

def test_invalid_object_names_the_path(db):
    register_hmcache(db)
    db.schema.register("Holder", "1", {"foo": {"ref": "FooObject"}, "list": {"array": "integer"}})
    with pytest.raises(larder.InvalidObject) as e:
        db.object.put("h", "Holder", {"foo": {**FOO_1_0_2, "date": "soon"}, "list": []})
    assert e.value.code == -31022
    assert e.value.data == {"path": "value.foo.date", "reason": "expected number, got string"}
    with pytest.raises(larder.InvalidObject) as e:
        db.object.put("h", "Holder", {"foo": FOO_1_0_2, "list": [1, "two"]})
    assert e.value.data["path"] == "value.list[1]"
    with pytest.raises(larder.InvalidObject, match="missing required field") as e:
        db.object.put("h", "Holder", {"list": []})
    assert e.value.data["path"] == "value.foo"
    with pytest.raises(larder.InvalidObject, match='no field "extra"'):
        db.object.put("h", "Holder", {"foo": FOO_1_0_2, "list": [], "extra": 1})
    with pytest.raises(larder.SchemaNotFound):
        db.object.put("h", "Cat", {})
    assert db.object.get("h") == {"found": False}


def test_object_get_errors_and_options(db):
    db.schema.register("Note", "1", {"title": "string", "tags": {"type": {"array": "string"}, "default": []}})
    assert db.object.put("n", "Note", {"title": "t"}, ttl=10, cache="notes", group="g") == {
        "stored": True, "type": "Note", "version": "1", "revision": 1}
    assert db.object.get("n") == {"found": False}
    assert db.object.get("n", cache="notes") == {"found": False}
    assert db.object.get("n", cache="notes", group="g")["value"] == {"title": "t", "tags": []}
    assert db.cache.entry("n", cache="notes", group="g")["expiresAt"] == "2026-01-01T00:00:10.000Z"
    with pytest.raises(larder.RequestFailed, match="is a Note, not a Memo") as e:
        db.object.get("n", type="Memo", cache="notes", group="g")
    assert e.value.data == {"key": "n", "type": "Note"}
    db.cache.set("plain", 1)
    with pytest.raises(larder.NotAnObject) as e:
        db.object.get("plain")
    assert e.value.code == -31023 and e.value.data == {"key": "plain"}


def test_describe_equals_hash_copy(db):
    db.schema.register("Animal", "1", {"name": "string"})
    db.schema.register("Person", "1", {"name": "string"})
    db.schema.register("Dog", "1", {"breed": "string", "owner": {"ref": "Person"}}, parent="Animal",
                       extensions={"Tricks": {"trick": "string"}})
    rex = {"name": "Rex", "breed": "collie", "owner": {"name": "Ada"}, "trick": "roll over"}
    db.object.put("rex", "Dog", rex, group="pets")
    assert db.object.describe("rex", group="pets") == {"description": {"*Dog": {
        "breed": "collie", "owner": {"*Person": {"name": "Ada"}}, "(Tricks)trick": "roll over",
        "**Animal": {"name": "Rex"}}}}
    assert db.object.describe(type="Dog", value=rex) == db.object.describe("rex", group="pets")
    assert db.object.describe({"type": "Person", "value": {"name": "Bo"}}) == {"description": {"*Person": {"name": "Bo"}}}

    assert db.object.copy("rex", "rex2", group="pets", to_cache="kennel", to_group="copies") == {
        "copied": True, "type": "Dog", "version": "1"}
    assert db.object.get("rex2", cache="kennel", group="copies")["value"] == db.object.get("rex", group="pets")["value"]
    assert db.object.copy("rex", "rex3", group="pets")["copied"] is True
    assert db.object.get("rex3", group="pets")["found"] is True
    with pytest.raises(larder.RequestFailed, match="no object under key"):
        db.object.copy("nobody", "x")

    assert db.object.equals("rex", "rex3", group="pets") == {"equal": True}
    assert db.object.equals("rex", {"key": "rex2", "cache": "kennel", "group": "copies"}, group="pets") == {"equal": True}
    assert db.object.equals({"type": "Dog", "value": rex}, {"type": "Dog", "value": {**rex, "breed": "beagle"}}) == {
        "equal": False}
    # Same value, different type.
    assert db.object.equals({"type": "Animal", "value": {"name": "Ada"}},
                            {"type": "Person", "value": {"name": "Ada"}}) == {"equal": False}
    with pytest.raises(larder.RequestFailed):
        db.object.equals("rex", "nobody")

    h = db.object.hash("rex", group="pets")["hash"]
    assert db.object.hash({"key": "rex2", "cache": "kennel", "group": "copies"})["hash"] == h
    assert db.object.hash(type="Dog", value={**rex, "breed": "beagle"})["hash"] != h
    with pytest.raises(larder.InvalidObject):
        db.object.hash(type="Dog", value={"name": 1})


def test_operand_argument_checks(db):
    with pytest.raises(TypeError):
        db.object.describe()
    with pytest.raises(TypeError):
        db.object.describe("k", type="Dog", value={})
    with pytest.raises(TypeError):
        db.object.hash(type="Dog")
    with pytest.raises(TypeError):
        db.object.equals("a", 5)


def test_schema_and_objects_in_a_pipeline(db):
    with db.pipeline() as p:
        p.schema.register("P", "1", {"x": "integer"})
        p.object.put("k", "P", {"x": 1})
        got = p.object.get("k")
        p.object.hash("k")
        p.migrate.run()
    assert got.result()["value"] == {"x": 1}
    assert p.results[4]["upToDate"] == 1


# -- migrations that ask the client ------------------------------------------

def test_callback_answered_with_a_value(cdb):
    assert cdb.migration_callbacks is True
    note_v1_v2_callback(cdb, [("a", "ok")])
    got = cdb.object.get("a")
    assert got == {"found": True, "type": "Note", "version": "2", "value": {"n": 10, "mode": "ok"}, "migratedFrom": "1",
                   "revision": 2}
    assert cdb.handler.calls == [{"type": "Note", "key": "a", "cache": "default", "group": "", "fromVersion": "1",
                                  "toVersion": "2", "value": {"n": 1, "mode": "ok"}}]
    assert cdb.object.get("a")["value"] == {"n": 10, "mode": "ok"}
    assert len(cdb.handler.calls) == 1, "written back: not asked again"


def test_callback_params_name_cache_and_group(cdb):
    cdb.schema.register("Note", "1", {"n": "integer", "mode": "string"})
    cdb.object.put("a", "Note", {"n": 2, "mode": "ok"}, cache="c", group="g")
    cdb.schema.register("Note", "2", {"n": "integer", "mode": "string"},
                        migrations=[{"from": "1", "steps": [{"op": "callback"}]}])
    assert cdb.object.hash("a", cache="c", group="g") == cdb.object.hash(type="Note", value={"n": 20, "mode": "ok"})
    assert (cdb.handler.calls[0]["cache"], cdb.handler.calls[0]["group"]) == ("c", "g")


def test_callback_answered_with_drop(cdb):
    note_v1_v2_callback(cdb, [("b", "drop")])
    assert cdb.object.get("b") == {"found": False, "dropped": True, "type": "Note", "migratedFrom": "1"}
    assert cdb.object.get("b") == {"found": False}
    assert cdb.cache.entry("b") == {"found": False}


@pytest.mark.parametrize("mode,reason", [("fail", "cannot migrate this one"), ("crash", "ValueError: the handler crashed")])
def test_callback_raising_fails_and_leaves_the_object(cdb, mode, reason):
    note_v1_v2_callback(cdb, [("c", mode)])
    with pytest.raises(larder.MigrationFailed) as e:
        cdb.object.get("c")
    assert e.value.code == -31031
    assert e.value.data["key"] == "c" and e.value.data["type"] == "Note"
    assert (e.value.data["fromVersion"], e.value.data["toVersion"]) == ("1", "2")
    assert reason in e.value.data["reason"]
    raw = cdb.cache.entry("c")
    assert raw["version"] == "1" and raw["value"] == {"n": 1, "mode": mode}, "the stored object is untouched"
    # A later read asks again; this time the handler copes.
    cdb.handler.fail_modes = set()
    assert cdb.object.get("c")["value"] == {"n": 10, "mode": mode}
    assert len(cdb.handler.calls) == 2


def test_handler_returning_a_non_object_fails(cdb):
    cdb.on_migrate(lambda params: "not an object")
    note_v1_v2_callback(cdb, [("a", "ok")])
    with pytest.raises(larder.MigrationFailed, match="not an object"):
        cdb.object.get("a")


def test_decorator_form(binary):
    with larder.Larder.spawn(memory=True, binary=binary, migration_callbacks=True) as db:
        assert db.migration_callbacks is True

        @db.on_migrate
        def upgrade(params):
            return {**params["value"], "n": -1}

        @db.on_migrate()
        def upgrade_again(params):
            return {**params["value"], "n": -2}

        assert upgrade_again is not None
        db.on_migrate(upgrade)

        note_v1_v2_callback(db, [("a", "ok")])
        assert db.object.get("a")["value"] == {"n": -1, "mode": "ok"}
        assert upgrade({"value": {"n": 3}}) == {"n": -1}


def test_handler_registered_before_initialize_declares_the_capability(binary):
    with larder.Larder.spawn(memory=True, binary=binary, initialize=False) as db:
        db.on_migrate(lambda params: params["value"])
        db.initialize()
        assert db.migration_callbacks is True
        note_v1_v2_callback(db, [("a", "ok")])
        assert db.object.get("a")["migratedFrom"] == "1"


def test_without_the_capability_the_server_does_not_ask(db):
    assert db.migration_callbacks is False
    asked = []
    db.on_migrate(asked.append)  # too late: initialize did not declare migrationCallbacks
    note_v1_v2_callback(db, [("a", "ok")])
    with pytest.raises(larder.MigrationFailed, match="migrationCallbacks"):
        db.object.get("a")
    assert asked == []
    assert db.cache.entry("a")["version"] == "1"


def test_capability_can_be_refused_explicitly(binary):
    with larder.Larder.spawn(memory=True, binary=binary, on_migrate=lambda p: p["value"],
                             migration_callbacks=False) as db:
        assert db.migration_callbacks is False
        note_v1_v2_callback(db, [("a", "ok")])
        with pytest.raises(larder.MigrationFailed):
            db.object.get("a")


def test_handler_may_call_the_server(cdb):
    cdb.cache.set("factor", 7)
    cdb.on_migrate(lambda p: {**p["value"], "n": cdb.cache.entry("factor")["value"]})
    note_v1_v2_callback(cdb, [("a", "ok")])
    assert cdb.object.get("a")["value"]["n"] == 7


def test_callback_while_other_requests_are_served(cdb):
    release = threading.Event()

    def slow(params):
        release.wait(10)
        return params["value"]

    cdb.on_migrate(slow)
    note_v1_v2_callback(cdb, [("a", "ok")])
    pending = cdb.call_async("object.get", {"key": "a"})
    assert cdb.cache.set("meanwhile", 1)["stored"] is True  # served while the callback waits
    assert not pending.done()
    release.set()
    assert pending.result(10)["migratedFrom"] == "1"


# -- migrate.run ---------------------------------------------------------------

def test_migrate_run_counts_and_progress(cdb):
    note_v1_v2_callback(cdb, [("a", "ok"), ("b", "drop"), ("c", "fail"), ("d", "ok")])
    cdb.object.put("e", "Note", {"n": 5, "mode": "new"})  # already at version 2
    reports = []
    counts = cdb.migrate.run(progress=reports.append, batch_size=2)
    assert {k: counts[k] for k in ("examined", "migrated", "upToDate", "failed", "dropped")} == {
        "examined": 5, "migrated": 2, "upToDate": 1, "failed": 1, "dropped": 1}
    [failure] = counts["failures"]
    assert failure["key"] == "c" and failure["type"] == "Note" and failure["fromVersion"] == "1"
    assert failure["error"]["code"] == larder.MigrationFailed.CODE
    # Every progress callback has run by the time the result is returned.
    kinds = [r["kind"] for r in reports]
    assert kinds[0] == "begin" and kinds[-1] == "end" and "report" in kinds
    assert set(kinds[1:-1]) == {"report"}
    assert reports[0]["message"] == "stored objects: 5"
    percentages = [r["percentage"] for r in reports if r["kind"] == "report"]
    assert percentages == sorted(percentages) and 0 < percentages[0] and percentages[-1] <= 100
    assert cdb.cache.entry("a")["version"] == "2" and cdb.cache.entry("a")["value"]["n"] == 10
    assert cdb.cache.entry("b") == {"found": False}
    assert cdb.cache.entry("c")["version"] == "1"
    # A second run finds only the failure left.
    again = cdb.migrate.run()
    assert (again["migrated"], again["failed"], again["upToDate"]) == (0, 1, 3)


def test_migrate_run_dry_run_writes_nothing(cdb):
    note_v1_v2_callback(cdb, [("a", "ok"), ("b", "drop")])
    counts = cdb.migrate.run(dry_run=True)
    assert (counts["examined"], counts["migrated"], counts["failed"]) == (2, 1, 0)
    assert cdb.cache.entry("a")["version"] == "1"
    assert cdb.cache.entry("b")["found"] is True
    assert cdb.migrate.run()["migrated"] == 1
    assert cdb.cache.entry("a")["version"] == "2"
    assert cdb.cache.entry("b") == {"found": False}


def test_migrate_run_on_failure_drop(cdb):
    note_v1_v2_callback(cdb, [("a", "ok"), ("c", "fail")])
    counts = cdb.migrate.run(on_failure="drop")
    assert (counts["migrated"], counts["failed"], counts["dropped"]) == (1, 1, 1)
    assert cdb.cache.entry("c") == {"found": False}
    with pytest.raises(larder.InvalidParams, match="onFailure"):
        cdb.migrate.run(on_failure="shrug")


def test_migrate_run_type_and_cache_filters(cdb):
    cdb.schema.register("Note", "1", {"n": "integer", "mode": "string"})
    cdb.object.put("x", "Note", {"n": 1, "mode": "ok"}, cache="other")
    cdb.schema.register("Note", "2", {"n": "integer", "mode": "string"},
                        migrations=[{"from": "1", "steps": [{"op": "callback"}]}])
    cdb.schema.register("Tag", "1", {"label": "string"})
    cdb.object.put("t", "Tag", {"label": "l"})
    cdb.schema.register("Tag", "2", {"label": "string", "colour": "string?"})
    assert cdb.migrate.run(type="Tag")["migrated"] == 1  # only adds an optional field: no migration needed
    assert cdb.handler.calls == []
    assert cdb.migrate.run(cache="default")["migrated"] == 0
    assert cdb.migrate.run(cache="nowhere")["examined"] == 0
    assert cdb.migrate.run(cache="other")["migrated"] == 1
    with pytest.raises(larder.InvalidParams, match="batchSize"):
        cdb.migrate.run(batch_size=0)


def test_migrate_run_with_own_token(cdb):
    note_v1_v2_callback(cdb, [("a", "ok")])
    reports = []
    cdb.migrate.run(work_done_token="mine", progress=reports.append)
    assert reports[0]["kind"] == "begin" and reports[-1]["kind"] == "end"
    seen = []
    cdb.on_event("$/progress", seen.append)
    cdb.migrate.run(work_done_token=7)
    # Notifications reach handlers on the callback thread: wait for the run's last one.
    deadline = time.monotonic() + 5
    while not any(m["value"]["kind"] == "end" for m in seen) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert {m["token"] for m in seen} == {7}


def test_migrate_run_cancelled_between_batches(binary):
    with larder.Larder.spawn(memory=True, binary=binary, migration_callbacks=True, timeout=30) as db:
        note_v1_v2_callback(db, [(k, "ok") for k in "abcd"])
        p = db.pipeline()
        future = p.migrate.run(batch_size=1)
        asked = []

        def handler(params):
            asked.append(params["key"])
            if len(asked) == 1:
                db.cancel(future)
            return params["value"]

        db.on_migrate(handler)
        p.flush()
        with pytest.raises(larder.RequestCancelled) as e:
            future.result(30)
        done = e.value.data["migrated"]
        assert 1 <= done < 4, e.value.data
        assert db.migrate.run()["migrated"] == 4 - done


def test_migration_missing(db):
    db.schema.register("Shape", "1", {"sides": "integer"})
    db.object.put("s", "Shape", {"sides": 3})
    db.schema.register("Shape", "2", {"sides": "string"})
    with pytest.raises(larder.MigrationMissing) as e:
        db.object.get("s")
    assert e.value.code == -31030
    assert e.value.data == {"type": "Shape", "fromVersion": "1", "toVersion": "2", "fields": ["sides (integer → string)"]}
    # A version whose migration leads from 1 fills the gap.
    db.schema.register("Shape", "3", {"sides": "string"}, migrations=[{"from": "1", "steps": [
        {"op": "convert", "field": "sides", "to": "string"}]}])
    assert db.object.get("s")["value"] == {"sides": "3"}


def test_object_wrappers_cover_the_openrpc_document(db):
    """Once rpc.discover documents schema.*, object.* and migrate.*, every documented
    parameter must be something the wrapper can send."""
    import inspect

    try:
        doc = db.discover()
    except larder.MethodNotFound:
        missing("this larder has no rpc.discover")
    documented = {m["name"]: {p["name"] for p in m.get("params", [])} for m in doc["methods"]}
    names = sorted(n for n in documented if n.split(".")[0] in ("schema", "object", "migrate"))
    if not names:
        missing("the OpenRPC document does not list schema.*, object.* or migrate.* yet")
    for name in names:
        prefix, method = name.split(".", 1)
        wrapper = getattr(getattr(db, prefix), "".join("_" + c.lower() if c.isupper() else c for c in method), None)
        assert wrapper is not None, f"no wrapper for {name}"
        sent = {larder.cache.camel(p) for p in inspect.signature(wrapper).parameters} - {"progress"}
        assert documented[name] <= sent, f"{name}: {sorted(documented[name] - sent)} cannot be passed"


def test_put_at_an_older_version(db):
    db.schema.register("Memo", "1", {"text": "string"})
    db.schema.register("Memo", "2", {"body": "string"}, migrations=[
        {"from": "1", "steps": [{"op": "rename", "from": "text", "to": "body"}]}])
    assert db.object.put("old", "Memo", {"text": "hi"}, version="1")["version"] == "1"
    assert db.cache.entry("old")["version"] == "1", "stored tagged with the version it was written at"
    got = db.object.get("old")
    assert got["version"] == "2" and got["value"] == {"body": "hi"} and got["migratedFrom"] == "1"
    with pytest.raises(larder.InvalidObject):
        db.object.put("bad", "Memo", {"body": "v2 shape"}, version="1")
    assert db.object.put("new", "Memo", {"body": "now"})["version"] == "2"


# -- arrays of objects (HMCache's +cacheArray:forKey:) ------------------------------


def test_an_array_of_objects_under_one_key(db):
    db.schema.register("Bar", "1", {"name": "string", "date": "date?"})
    bars = [{"name": "a"}, {"name": "b", "date": "2017-01-01T00:00:00Z"}]
    assert db.object.put("bars", "Bar", values=(b for b in bars)) == {
        "stored": True, "type": "Bar", "version": "1", "form": "array", "count": 2, "revision": 1}
    assert db.object.get("bars") == {"found": True, "form": "array", "type": "Bar", "version": "1", "values": bars,
                                     "revision": 1}
    entry = db.cache.entry("bars")
    assert entry["form"] == "array" and entry["value"] == bars and entry["type"] == "Bar"
    # Every field described, an unset one as None (HMCache's "barObjectDate" : null).
    assert db.object.describe("bars")["description"] == [
        {"*Bar": {"name": "a", "date": None}}, {"*Bar": {"name": "b", "date": "2017-01-01T00:00:00Z"}}]
    assert db.object.describe(type="Bar", values=[{"name": "c"}])["description"] == [{"*Bar": {"name": "c", "date": None}}]
    assert db.object.hash("bars") == db.object.hash(type="Bar", values=bars)
    assert db.object.equals("bars", {"type": "Bar", "values": list(reversed(bars))}) == {"equal": False}
    assert db.object.copy("bars", "copy")["count"] == 2
    assert db.object.put("empty", "Bar", values=[])["count"] == 0
    assert db.object.get("empty")["values"] == []


def test_value_or_values(db):
    db.schema.register("Bar", "1", {"name": "string"})
    with pytest.raises(TypeError, match="not both"):
        db.object.put("k", "Bar", {"name": "a"}, values=[])
    with pytest.raises(TypeError, match="give value"):
        db.object.put("k", "Bar")
    with pytest.raises(TypeError, match="values must be a list"):
        db.object.put("k", "Bar", values={"name": "a"})
    with pytest.raises(TypeError, match="not both"):
        db.object.describe(type="Bar", value={"name": "a"}, values=[])
    with pytest.raises(larder.InvalidObject) as e:
        db.object.put("k", "Bar", values=[{"name": "a"}, {"name": 2}])
    assert e.value.data == {"path": "values[1].name", "reason": "expected string, got integer"}
    assert db.cache.entry("k") == {"found": False}
    # The server refuses both too, should a raw call send them.
    with pytest.raises(larder.InvalidParams, match="both value and values"):
        db.call("object.put", {"key": "k", "type": "Bar", "value": {"name": "a"}, "values": []})


def test_arrays_migrate_element_by_element(binary):
    asked = []

    def migrate(params):
        asked.append(params.get("index"))
        return larder.DROP if params["value"]["n"] == 2 else {"n": str(params["value"]["n"])}

    with larder.Larder.spawn(memory=True, binary=binary, args=TEST_ARGS, timeout=60, on_migrate=migrate) as db:
        db.schema.register("Tally", "1", {"n": "integer"})
        db.object.put("t", "Tally", values=[{"n": 1}, {"n": 2}, {"n": 3}])
        db.object.put("bad", "Tally", values=[{"n": 1}, {"n": 2}])
        db.schema.register("Tally", "2", {"n": "string"}, migrations=[{"from": "1", "steps": [{"op": "callback"}]}])
        got = db.object.get("t")
        assert asked == [0, 1, 2]
        assert got == {"found": True, "form": "array", "type": "Tally", "version": "2",
                       "values": [{"n": "1"}, {"n": "3"}], "migratedFrom": "1", "droppedElements": [1],
                       "revision": 3}
        # A failing element fails the whole read; the error names it, and nothing is written.
        db.schema.register("Tally", "3", {"n": "integer"}, migrations=[{"from": "2", "steps": [
            {"op": "convert", "field": "n", "to": "integer"}]}])
        db.cache.set("raw", 1)
        db.object.put("mixed", "Tally", values=[{"n": "4"}, {"n": "four"}], version="2")
        with pytest.raises(larder.MigrationFailed) as e:
            db.object.get("mixed")
        assert e.value.data["index"] == 1 and e.value.message.startswith("element 1: ")
        assert db.cache.entry("mixed")["version"] == "2"
        counts = db.migrate.run()
        assert counts["failed"] == 2 and counts["failures"][0]["key"] == "mixed"
        assert counts["failures"][0]["index"] == 1
