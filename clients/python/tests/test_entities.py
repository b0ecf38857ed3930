"""entity.* against the real server: JSONCache's scenario, merging, references,
queries, delete rules, models and redefinitions."""

from __future__ import annotations

import copy
import inspect

import pytest

import larder
from conftest import missing

# JSONCache's README model: names in camelCase as in Core Data, JSON keys in snake_case.
BANDS_ENTITIES = [
    {"name": "Band", "identifier": "name",
     "attributes": {"name": "string", "formed": "integer", "disbanded": "integer?", "hiatus": "string?",
                    "bandDescription": "string?", "otherNames": "string?"},
     "relationships": [
         {"name": "albums", "destination": "Album", "toMany": True, "inverse": "band", "deleteRule": "cascade"},
         {"name": "members", "destination": "BandMember", "toMany": True, "inverse": "band", "deleteRule": "cascade"}]},
    {"name": "BandMember",
     "attributes": {"id": "string", "instruments": "string", "joined": "integer", "left": "integer?"},
     "relationships": [{"name": "band", "destination": "Band", "inverse": "members"},
                       {"name": "musician", "destination": "Musician", "inverse": "bands"}]},
    {"name": "Musician", "identifier": "name",
     "attributes": {"name": "string", "born": "integer", "died": "integer?", "instruments": "string"},
     "relationships": [{"name": "bands", "destination": "BandMember", "toMany": True, "inverse": "musician",
                        "deleteRule": "deny"}]},
    {"name": "Album", "identifier": "name",
     "attributes": {"name": "string", "released": "date", "label": "string?"},
     "relationships": [{"name": "band", "destination": "Band", "inverse": "albums"}]},
]

# The backend's JSON, one array per entity, as JSONCache's README has it.
BANDS = [{"name": "Japan", "formed": 1974, "disbanded": 1991, "hiatus": "1982-1989",
          "description": "Initially a glam-inspired group [...]", "other_names": "Rain Tree Crow"}]
BAND_MEMBERS = [
    {"id": f"{name} in Japan", "musician": name, "band": "Japan", "instruments": instruments, "joined": 1974,
     "left": 1991}
    for name, instruments in [("David Sylvian", "Lead vocals, keyboards, guitar"), ("Mick Karn", "Bass, saxophone"),
                              ("Steve Jansen", "Drums, percussion"),
                              ("Richard Barbieri", "Keyboards, synthesizers")]
]
MUSICIANS = [
    {"name": "David Sylvian", "born": 1958, "instruments": "Vocals, guitar, keyboards"},
    {"name": "Mick Karn", "born": 1958, "died": 2011, "instruments": "Bass, saxophone, clarinet"},
    {"name": "Steve Jansen", "born": 1959, "instruments": "Drums, percussion, keyboards"},
    {"name": "Richard Barbieri", "born": 1957, "instruments": "Keyboards, synthesizers"},
]
ALBUMS = [
    {"name": "Gentlemen Take Polaroids", "band": "Japan", "released": "1980-10-24T00:00:00Z", "label": "Virgin"},
    {"name": "Tin Drum", "band": "Japan", "released": "1981-11-13T00:00:00Z", "label": "Virgin"},
]


def define_bands(db):
    return db.entity.define("Bands", BANDS_ENTITIES, casing="snake_case", date_format="iso8601")


def load_bands(db):
    define_bands(db)
    for entity, records in (("Band", BANDS), ("BandMember", BAND_MEMBERS), ("Musician", MUSICIANS),
                            ("Album", ALBUMS)):
        db.entity.stage(entity, records)
    return db.entity.apply()


# -- the JSONCache scenario ----------------------------------------------------

def test_jsoncache_scenario(db):
    assert define_bands(db) == {"model": "Bands", "created": True,
                                "newEntities": ["Band", "BandMember", "Musician", "Album"], "added": []}
    sent = copy.deepcopy([BANDS, BAND_MEMBERS, MUSICIANS, ALBUMS])
    # Four staging calls, members before the musicians they refer to: nothing is written until apply.
    assert db.entity.stage("Band", BANDS) == {"staged": 1, "pending": 1}
    assert db.entity.stage("BandMember", BAND_MEMBERS) == {"staged": 4, "pending": 5}
    assert db.entity.stage("Musician", MUSICIANS) == {"staged": 4, "pending": 9}
    assert db.entity.stage("Album", ALBUMS) == {"staged": 2, "pending": 11}
    assert db.entity.count("Band") == 0
    assert db.entity.apply() == {"inserted": 11, "updated": 0, "linked": 10, "unresolved": 0}
    assert [BANDS, BAND_MEMBERS, MUSICIANS, ALBUMS] == sent, "the records were sent as given, not changed"
    assert db.entity.stage("Band", []) == {"staged": 0, "pending": 0}, "apply emptied the batch"

    got = db.entity.get("Band", "Japan", include=["albums", "members"])
    assert got["found"] is True
    japan = got["record"]
    # Keys come back in the model's casing; the reserved word under its JSON name.
    assert {k: japan[k] for k in ("name", "formed", "disbanded", "hiatus", "description", "other_names")} == {
        **BANDS[0]}
    assert [a["name"] for a in japan["albums"]] == ["Gentlemen Take Polaroids", "Tin Drum"]
    assert japan["albums"][1] == {**ALBUMS[1]}
    assert [m["musician"] for m in japan["members"]] == ["David Sylvian", "Mick Karn", "Richard Barbieri",
                                                        "Steve Jansen"]

    deep = db.entity.get("Band", "Japan", include="members.musician")["record"]
    assert deep["albums"] == ["Gentlemen Take Polaroids", "Tin Drum"], "not included: identifiers"
    karn = next(m for m in deep["members"] if m["id"] == "Mick Karn in Japan")
    assert karn["musician"] == {"name": "Mick Karn", "born": 1958, "died": 2011,
                                "instruments": "Bass, saxophone, clarinet", "bands": ["Mick Karn in Japan"]}
    assert db.entity.get("Band", "Duran Duran") == {"found": False}

    # A later batch of albums alone links to the band already stored; dates come back in UTC.
    db.entity.stage("Album", [{"name": "Oil on Canvas", "band": "Japan",
                               "released": "1983-06-01T09:00:00.000+09:00", "label": "Virgin"}])
    assert db.entity.apply() == {"inserted": 1, "updated": 0, "linked": 1, "unresolved": 0}
    assert db.entity.get("Album", "Oil on Canvas")["record"]["released"] == "1983-06-01T00:00:00Z"

    many = db.entity.get_many("Band", ["Duran Duran", "Japan"], include=["albums"])
    assert many["missing"] == ["Duran Duran"]
    assert [r["name"] for r in many["records"]] == ["Japan"]
    assert len(many["records"][0]["albums"]) == 3

    # A staged batch can be discarded instead.
    db.entity.stage("Album", [{"name": "Quiet Life", "band": "Japan"}])
    assert db.entity.discard() == {"discarded": 1}
    assert db.entity.count("Album") == 3


def test_staging_and_applying_in_a_pipeline(db):
    define_bands(db)
    with db.pipeline() as p:
        p.entity.stage("Album", ALBUMS)
        p.entity.stage("BandMember", BAND_MEMBERS)
        p.entity.stage("Musician", MUSICIANS)
        p.entity.stage("Band", BANDS)
        applied = p.entity.apply()
        counted = p.entity.count("BandMember", where={"band": "Japan"})
    assert [r["pending"] for r in p.results[:4]] == [2, 6, 10, 11]
    assert applied.result() == {"inserted": 11, "updated": 0, "linked": 10, "unresolved": 0}
    assert counted.result() == 4
    with pytest.raises(TypeError, match="pipeline"):
        db.pipeline().entity.iter_query("Band")


def test_upsert_leaves_the_staged_batch_alone(db):
    define_bands(db)
    db.entity.stage("Musician", MUSICIANS[:1])
    assert db.entity.upsert("Musician", MUSICIANS[1:]) == {"inserted": 3, "updated": 0, "linked": 0,
                                                           "unresolved": 0}
    assert db.entity.stage("Musician", []) == {"staged": 0, "pending": 1}
    assert db.entity.apply()["inserted"] == 1
    assert db.entity.count("Musician") == 4


# -- merging ------------------------------------------------------------------

def test_records_merge_and_null_clears(db):
    load_bands(db)
    # Keys a record leaves out keep their values.
    assert db.entity.upsert("Band", [{"name": "Japan", "formed": 1973}]) == {
        "inserted": 0, "updated": 1, "linked": 0, "unresolved": 0}
    japan = db.entity.get("Band", "Japan")["record"]
    assert (japan["formed"], japan["hiatus"], japan["other_names"]) == (1973, "1982-1989", "Rain Tree Crow")
    # An explicit null clears an optional attribute...
    db.entity.upsert("Band", [{"name": "Japan", "hiatus": None, "other_names": None}])
    japan = db.entity.get("Band", "Japan")["record"]
    assert (japan["formed"], japan["hiatus"], japan["other_names"], japan["disbanded"]) == (1973, None, None, 1991)
    # ...and unlinks a to-one relationship (the band's to-many side follows).
    db.entity.upsert("Album", [{"name": "Tin Drum", "band": None}])
    assert db.entity.get("Album", "Tin Drum")["record"]["band"] is None
    assert db.entity.get("Band", "Japan")["record"]["albums"] == ["Gentlemen Take Polaroids"]
    # A required attribute cannot be cleared; nothing of that call is written.
    with pytest.raises(larder.InvalidParams, match="formed is required"):
        db.entity.upsert("Band", [{"name": "Japan", "hiatus": "again"}, {"name": "Japan", "formed": None}])
    assert db.entity.get("Band", "Japan")["record"]["hiatus"] is None
    # The same record staged twice is merged: later members win, others stay.
    db.entity.stage("Musician", [{"name": "Mick Karn", "born": 1959}])
    assert db.entity.stage("Musician", [{"name": "Mick Karn", "instruments": "Bass"}]) == {"staged": 1, "pending": 1}
    assert db.entity.apply()["updated"] == 1
    karn = db.entity.get("Musician", "Mick Karn")["record"]
    assert (karn["born"], karn["died"], karn["instruments"]) == (1959, 2011, "Bass")


def test_new_records_need_every_required_attribute(db):
    load_bands(db)
    with pytest.raises(larder.IncompleteRecord) as e:
        db.entity.upsert("Album", [{"name": "Quiet Life", "band": "Japan"}])
    assert e.value.code == -31044
    assert e.value.data == {"entity": "Album", "id": "Quiet Life", "missing": ["released"]}
    assert db.entity.get("Album", "Quiet Life") == {"found": False}
    # Staged, the apply fails the same way and keeps the batch.
    db.entity.stage("Album", [{"name": "Quiet Life", "band": "Japan"}])
    with pytest.raises(larder.IncompleteRecord):
        db.entity.apply()
    db.entity.stage("Album", [{"name": "Quiet Life", "released": "1979-11-01T00:00:00Z"}])
    assert db.entity.apply() == {"inserted": 1, "updated": 0, "linked": 1, "unresolved": 0}


def test_bad_records_stage_nothing(db):
    define_bands(db)
    db.entity.stage("Band", BANDS)
    with pytest.raises(larder.InvalidParams, match=r"records\[1\]\.released"):
        db.entity.stage("Album", [ALBUMS[0], {**ALBUMS[1], "released": "1981-13-13T00:00:00Z"}])
    with pytest.raises(larder.InvalidParams, match='no attribute or relationship "genre"'):
        db.entity.stage("Band", [{"name": "Japan", "genre": "new wave"}])
    with pytest.raises(larder.InvalidParams, match='needs its identifier "name"'):
        db.entity.stage("Band", [{"formed": 1974}])
    assert db.entity.stage("Album", []) == {"staged": 0, "pending": 1}
    with pytest.raises(larder.EntityNotFound) as e:
        db.entity.stage("Venue", [{"id": "Budokan"}])
    assert e.value.code == -31040 and e.value.data == {"entity": "Venue"}
    with pytest.raises(larder.EntityNotFound):
        db.entity.get("Venue", "Budokan")


# -- references ---------------------------------------------------------------

def test_unresolved_references_fail_and_write_nothing(db):
    define_bands(db)
    db.entity.stage("Album", [ALBUMS[1], {"name": "Vienna", "band": "Ultravox", "released": "1980-07-11T00:00:00Z"}])
    with pytest.raises(larder.UnresolvedReferences) as e:
        db.entity.apply()
    assert e.value.code == -31042
    assert e.value.data == {
        "missing": {"Band": ["Japan", "Ultravox"]},
        "references": [
            {"entity": "Album", "id": "Tin Drum", "relationship": "band", "destination": "Band", "missingId": "Japan"},
            {"entity": "Album", "id": "Vienna", "relationship": "band", "destination": "Band",
             "missingId": "Ultravox"}],
        "count": 2}
    assert db.entity.count("Album") == 0, "nothing was written"
    assert db.entity.stage("Album", []) == {"staged": 0, "pending": 2}, "the batch stays"
    # Staging the missing band resolves one; on_missing="null" clears the other and counts it.
    db.entity.stage("Band", [{"name": "Japan", "formed": 1974}])
    assert db.entity.apply(on_missing="null") == {"inserted": 3, "updated": 0, "linked": 1, "unresolved": 1}
    assert db.entity.get("Album", "Vienna")["record"]["band"] is None
    assert db.entity.get("Album", "Tin Drum")["record"]["band"] == "Japan"
    with pytest.raises(larder.InvalidParams, match="onMissing"):
        db.entity.apply(on_missing="ignore")


def test_upsert_with_unresolved_references(db):
    define_bands(db)
    member = {"id": "Midge Ure in Ultravox", "band": "Ultravox", "musician": "Midge Ure",
              "instruments": "Vocals, guitar", "joined": 1979}
    with pytest.raises(larder.UnresolvedReferences) as e:
        db.entity.upsert("BandMember", [member])
    assert e.value.data["missing"] == {"Band": ["Ultravox"], "Musician": ["Midge Ure"]}
    assert e.value.data["count"] == 2
    assert db.entity.count("BandMember") == 0
    # A reference to a record only staged (not applied) does not resolve an upsert's own batch.
    db.entity.stage("Band", [{"name": "Ultravox", "formed": 1974}])
    with pytest.raises(larder.UnresolvedReferences):
        db.entity.upsert("BandMember", [{**member, "musician": None}])
    assert db.entity.upsert("BandMember", [member], on_missing="null") == {
        "inserted": 1, "updated": 0, "linked": 0, "unresolved": 2}
    assert db.entity.get("BandMember", member["id"])["record"] == {**member, "band": None, "musician": None,
                                                                   "left": None}


def test_inverses_are_kept_in_step(db):
    db.entity.define("Travel", [
        {"name": "Person", "attributes": {"id": "string"},
         "relationships": [{"name": "passport", "destination": "Passport", "inverse": "owner"}]},
        {"name": "Passport", "attributes": {"id": "string"},
         "relationships": [{"name": "owner", "destination": "Person", "inverse": "passport"}]},
        {"name": "Team", "attributes": {"id": "integer"},
         "relationships": [{"name": "players", "destination": "Player", "toMany": True, "inverse": "team"}]},
        {"name": "Player", "attributes": {"id": "string"},
         "relationships": [{"name": "team", "destination": "Team"}]},
    ])
    db.entity.upsert("Person", [{"id": "ann"}, {"id": "bob"}])
    db.entity.upsert("Passport", [{"id": "P1", "owner": "ann"}])
    assert db.entity.get("Person", "ann", include="passport")["record"] == {
        "id": "ann", "passport": {"id": "P1", "owner": "ann"}}
    db.entity.upsert("Person", [{"id": "bob", "passport": "P1"}])
    assert db.entity.get_many("Person", ["ann", "bob"])["records"] == [
        {"id": "ann", "passport": None}, {"id": "bob", "passport": "P1"}]
    db.entity.upsert("Team", [{"id": 1}, {"id": 2}])
    db.entity.upsert("Player", [{"id": "p"}, {"id": "q"}])
    assert db.entity.upsert("Team", [{"id": 1, "players": ["p", "q"]}])["linked"] == 2
    assert db.entity.get("Player", "p")["record"] == {"id": "p", "team": 1}
    # A later record of the batch wins over an earlier one setting the other side.
    db.entity.stage("Team", [{"id": 2, "players": ["p", "q"]}])
    db.entity.stage("Player", [{"id": "q", "team": 1}])
    db.entity.apply()
    assert [r["players"] for r in db.entity.get_many("Team", [1, 2])["records"]] == [["q"], ["p"]]


# -- queries ------------------------------------------------------------------

def test_queries_with_operators(db):
    load_bands(db)
    db.entity.stage("Album", [
        {"name": "Oil on Canvas", "band": "Japan", "released": "1983-06-01T00:00:00Z", "label": "Virgin"},
        {"name": "Exorcising Ghosts", "band": "Japan", "released": "1984-11-01T00:00:00Z"},
        {"name": "Adolescent Sex", "band": "Japan", "released": "1978-04-08T00:00:00Z", "label": "Hansa"},
    ])
    db.entity.apply()

    def names(entity, **kw):
        return [r["name"] for r in db.entity.query(entity, **kw)["records"]]

    assert names("Album") == ["Adolescent Sex", "Exorcising Ghosts", "Gentlemen Take Polaroids", "Oil on Canvas",
                              "Tin Drum"], "ordered by identifier by default"
    # Conditions combine with AND; dates compare as instants in the model's format.
    assert names("Album", where={"band": "Japan", "released": {"gte": "1981-01-01T00:00:00Z"}},
                 order_by=["-released"]) == ["Exorcising Ghosts", "Oil on Canvas", "Tin Drum"]
    assert names("Album", where={"released": {"gt": "1978-04-08T00:00:00Z", "lt": "1983-06-01T00:00:00Z"}},
                 order_by="released") == ["Gentlemen Take Polaroids", "Tin Drum"]
    assert names("Album", where={"released": {"lte": "1980-10-24T00:00:00+00:00"}}) == [
        "Adolescent Sex", "Gentlemen Take Polaroids"]
    assert names("Album", where={"label": {"in": ["Hansa", "Polydor"]}}) == ["Adolescent Sex"]
    assert names("Album", where={"label": {"isNull": True}}) == ["Exorcising Ghosts"]
    assert names("Album", where={"label": None}) == ["Exorcising Ghosts"]
    # ne keeps records whose value is null (null is not equal to "Virgin").
    assert names("Album", where={"label": {"ne": "Virgin"}}) == ["Adolescent Sex", "Exorcising Ghosts"]
    assert names("Album", where={"label": {"eq": "Virgin"}, "name": {"like": "%n%"}}) == [
        "Gentlemen Take Polaroids", "Oil on Canvas", "Tin Drum"]
    assert names("Musician", where={"died": {"isNull": False}}) == ["Mick Karn"]
    assert names("Musician", where={"born": {"in": [1957, 1958]}, "died": {"isNull": True}}) == [
        "David Sylvian", "Richard Barbieri"]
    assert names("Musician", order_by=["born", "-name"]) == ["Richard Barbieri", "Mick Karn", "David Sylvian",
                                                             "Steve Jansen"]
    # Snake_case keys in where and orderBy, like the records (like ignores ASCII case).
    assert db.entity.query("Band", where={"other_names": {"like": "rain%"}})["records"][0]["name"] == "Japan"
    # include works in queries too.
    [member] = db.entity.query("BandMember", where={"musician": "Mick Karn"}, include=["musician"])["records"]
    assert member["musician"]["died"] == 2011

    with pytest.raises(larder.InvalidParams, match='unknown member params.where.released.after'):
        db.entity.query("Album", where={"released": {"after": "1980-01-01T00:00:00Z"}})
    with pytest.raises(larder.InvalidParams, match="like compares strings"):
        db.entity.count("Band", where={"formed": {"like": "19%"}})
    with pytest.raises(larder.InvalidParams, match="to-many relationship"):
        db.entity.query("Band", where={"albums": "Tin Drum"})
    with pytest.raises(larder.InvalidParams, match="limit"):
        db.entity.query("Album", limit=0)
    with pytest.raises(TypeError):
        db.entity.query("Album", where=[("name", "Tin Drum")])


def test_query_pages_and_iter_query(db):
    define_bands(db)
    db.entity.upsert("Musician", [{"name": f"M{i:02}", "born": 1940 + i, "instruments": "drums"} for i in range(23)])
    first = db.entity.query("Musician", where={"born": {"gte": 1945}}, order_by="-born", limit=5)
    assert [r["name"] for r in first["records"]] == ["M22", "M21", "M20", "M19", "M18"]
    assert first["nextOffset"] == 5
    last = db.entity.query("Musician", where={"born": {"gte": 1945}}, order_by="-born", limit=5, offset=15)
    assert [r["name"] for r in last["records"]] == ["M07", "M06", "M05"]
    assert "nextOffset" not in last
    exact = db.entity.query("Musician", limit=23)
    assert len(exact["records"]) == 23 and "nextOffset" not in exact
    assert db.entity.query("Musician", offset=100) == {"records": []}

    every = list(db.entity.iter_query("Musician", where={"born": {"gte": 1945}}, order_by="-born", page_size=4))
    assert [r["born"] for r in every] == list(range(1962, 1944, -1))
    assert [r["name"] for r in db.entity.iter_query("Musician", page_size=10, offset=20)] == ["M20", "M21", "M22"]
    assert len(list(db.entity.iter_query("Musician"))) == 23
    assert list(db.entity.iter_query("Musician", where={"born": 1800})) == []


def test_count(db):
    load_bands(db)
    assert db.entity.count("BandMember") == 4
    assert db.entity.count("BandMember", where={"instruments": {"like": "%keyboards%"}}) == 2
    assert db.entity.count("Album", where={"band": "Japan", "released": {"lt": "1981-01-01T00:00:00Z"}}) == 1
    assert db.entity.count("Musician", where={}) == 4


# -- deleting -----------------------------------------------------------------

def test_delete_rules(db):
    load_bands(db)
    # Musician.bands is deny: a musician with memberships stays, and so does everything else.
    with pytest.raises(larder.DeleteDenied) as e:
        db.entity.delete("Musician", "Mick Karn")
    assert e.value.code == -31043
    assert e.value.data == {"entity": "Musician", "id": "Mick Karn", "relationship": "bands", "related": 1}
    assert db.entity.count("Musician") == 4
    # Band.albums and Band.members cascade.
    assert db.entity.delete("Band", "Japan") == {"deleted": 7, "nullified": 0}
    assert (db.entity.count("Album"), db.entity.count("BandMember")) == (0, 0)
    assert db.entity.get("Musician", "Mick Karn")["record"]["bands"] == []
    # Now nothing refers to him.
    assert db.entity.delete("Musician", "Mick Karn") == {"deleted": 1, "nullified": 0}
    assert db.entity.delete("Musician", "Mick Karn") == {"deleted": 0, "nullified": 0}


def test_delete_nullify_and_deny_inside_a_cascade(db):
    db.entity.define("Org", [
        {"name": "Team", "attributes": {"id": "string"},
         "relationships": [{"name": "people", "destination": "Person", "toMany": True, "inverse": "team",
                            "deleteRule": "cascade"}]},
        {"name": "Person", "attributes": {"id": "string"},
         "relationships": [{"name": "team", "destination": "Team"},
                           {"name": "badge", "destination": "Badge", "deleteRule": "deny"}]},
        {"name": "Badge", "attributes": {"id": "integer"}},
    ])
    db.entity.upsert("Badge", [{"id": 7}])
    db.entity.upsert("Team", [{"id": "t"}])
    db.entity.upsert("Person", [{"id": "a", "team": "t", "badge": 7}, {"id": "b", "team": "t"}])
    # Deleting the team cascades to a, whose badge relationship denies: nothing is deleted.
    with pytest.raises(larder.DeleteDenied) as e:
        db.entity.delete("Team", "t")
    assert e.value.data == {"entity": "Person", "id": "a", "relationship": "badge", "related": 1}
    assert [db.entity.count(n) for n in ("Team", "Person", "Badge")] == [1, 2, 1]
    # Badge has no relationship back: references to it are nullified.
    assert db.entity.delete("Badge", 7) == {"deleted": 1, "nullified": 1}
    assert db.entity.get("Person", "a")["record"] == {"id": "a", "team": "t", "badge": None}
    assert db.entity.delete("Team", "t") == {"deleted": 3, "nullified": 0}
    with pytest.raises(larder.InvalidParams, match=r"identifier of Badge \(integer\)"):
        db.entity.delete("Badge", "7")


# -- models -------------------------------------------------------------------

def test_models_and_redefinitions(db):
    assert db.entity.models() == {"models": []}
    define_bands(db)
    [model] = db.entity.models()["models"]
    assert (model["model"], model["casing"], model["dateFormat"], model["reservedWords"]) == (
        "Bands", "snake_case", "iso8601", ["description"])
    band = model["entities"][0]
    assert band["attributes"]["hiatus"] == {"optional": "string"}
    assert band["relationships"][0] == BANDS_ENTITIES[0]["relationships"][0]
    assert model["entities"][1]["identifier"] == "id"
    assert model["entities"][1]["relationships"][0]["deleteRule"] == "nullify"
    # The same definition again, as given or as listed, changes nothing.
    assert define_bands(db) == {"model": "Bands", "created": False, "newEntities": [], "added": []}
    assert db.entity.define(model) == {"model": "Bands", "created": False, "newEntities": [], "added": []}

    # Additions are made in place.
    load = copy.deepcopy(BANDS_ENTITIES)
    load[0]["attributes"]["website"] = "string?"
    load.append({"name": "Label", "attributes": {"id": "string"}})
    assert db.entity.define("Bands", load, casing="snake_case") == {
        "model": "Bands", "created": False, "newEntities": ["Label"], "added": ["Band.website"]}
    db.entity.upsert("Band", [{"name": "Japan", "formed": 1974, "website": "example.org"}])

    # Anything else is refused, naming every change, and changes nothing.
    changed = copy.deepcopy(load)
    changed[0]["attributes"]["formed"] = "string"
    changed[0]["attributes"]["country"] = "string"
    del changed[3]["attributes"]["label"]
    with pytest.raises(larder.ModelConflict) as e:
        db.entity.define("Bands", changed, casing="snake_case")
    assert e.value.code == -31041
    assert e.value.data == {"model": "Bands", "changes": [
        "attribute Band.formed changed from integer to string",
        "attribute Band.country added as required string (existing records have no value; add it as string?)",
        "attribute Album.label removed"]}
    with pytest.raises(larder.ModelConflict, match="casing changed from snake_case to camelCase"):
        db.entity.define("Bands", load)
    assert db.entity.get("Band", "Japan")["record"]["formed"] == 1974
    assert len(db.entity.models()["models"][0]["entities"]) == 5

    with pytest.raises(larder.InvalidParams, match="does not survive snake_case conversion"):
        db.entity.define("Venues", [{"name": "Venue", "attributes": {"id": "string", "city_name": "string"}}],
                         casing="snake_case")
    with pytest.raises(larder.InvalidParams, match="belongs to model Bands"):
        db.entity.define("Venues", [{"name": "Band", "attributes": {"id": "string"}}])


def test_date_formats_and_reserved_words(db):
    with pytest.raises(larder.InvalidParams, match="reserved word"):
        db.entity.define("Log2", [{"name": "Row", "attributes": {"id": "integer", "summary": "string"}}],
                         reserved_words=["summary"])
    db.entity.define("Log", [{"name": "Entry", "attributes": {"id": "integer", "at": "date",
                                                              "entrySummary": "string?"}}],
                     date_format="iso8601Basic", reserved_words=["summary"])
    db.entity.upsert("Entry", [{"id": 1, "at": "20000822T122800.5+0200", "summary": "s"}])
    assert db.entity.get("Entry", 1)["record"] == {"id": 1, "at": "20000822T102800.500Z", "summary": "s"}
    assert db.entity.count("Entry", where={"at": {"gte": "20000822T102800Z"}}) == 1
    db.entity.define("Clock", [{"name": "Tick", "attributes": {"id": "integer", "at": "date"}}],
                     date_format="epochSeconds")
    db.entity.upsert("Tick", [{"id": 1, "at": 966947280}, {"id": 2, "at": 966947280.25}])
    assert [r["at"] for r in db.entity.iter_query("Tick")] == [966947280, 966947280.25]


# -- render and parse ------------------------------------------------------------

def test_render_writes_a_struct_as_the_backends_json_without_storing_it(db):
    define_bands(db)
    # JSONCache's BandInfo struct: the model's names, a date in any RFC 3339 form.
    u2 = db.entity.render("Band", {"name": "U2", "bandDescription": "Dublin boys", "formed": 1976,
                                   "otherNames": "Passengers"})
    assert u2 == {"name": "U2", "formed": 1976, "disbanded": None, "hiatus": None, "description": "Dublin boys",
                  "other_names": "Passengers", "albums": [], "members": []}
    assert list(u2) == ["name", "formed", "disbanded", "hiatus", "description", "other_names", "albums", "members"]
    album = db.entity.render("Album", {"name": "Boy", "released": "1980-10-20T09:00:00+09:00", "band": "U2"})
    assert album == {"name": "Boy", "released": "1980-10-20T00:00:00Z", "label": None, "band": "U2"}
    assert db.entity.count("Band") == 0 and db.entity.count("Album") == 0
    assert db.entity.parse("Band", {"name": "U2", "description": "Dublin boys", "other_names": None}) == \
        {"name": "U2", "bandDescription": "Dublin boys", "otherNames": None}


def test_render_is_what_get_returns_after_storing(db):
    """For every record of JSONCache's scenario: the record read back, parsed,
    renders as itself; parsing a rendering gives the parse back; what render
    answers, stored, reads back unchanged; and the backend's JSON, parsed and
    rendered, is what get returns (to-many lists aside: only the store knows them)."""
    load_bands(db)
    to_many = {"Band": ["albums", "members"], "Musician": ["bands"], "BandMember": [], "Album": []}
    ids = {"Band": "name", "BandMember": "id", "Musician": "name", "Album": "name"}
    for entity, records in (("Band", BANDS), ("BandMember", BAND_MEMBERS), ("Musician", MUSICIANS),
                            ("Album", ALBUMS)):
        for sent in records:
            stored = db.entity.get(entity, sent[ids[entity]])["record"]
            model = db.entity.parse(entity, stored)
            rendered = db.entity.render(entity, model)
            assert rendered == stored and list(rendered) == list(stored)
            assert db.entity.parse(entity, rendered) == model
            db.entity.upsert(entity, [rendered])
            assert db.entity.get(entity, sent[ids[entity]])["record"] == rendered
            from_backend = db.entity.render(entity, db.entity.parse(entity, sent))
            for key in to_many[entity]:
                from_backend[key] = stored[key]
            assert from_backend == stored
    nested = db.entity.get("Band", "Japan", include=["albums", "members.musician"])["record"]
    assert db.entity.render("Band", db.entity.parse("Band", nested)) == nested


def test_parse_refuses_what_stage_refuses_with_the_same_message(db):
    define_bands(db)
    for entity, record in (("Band", {"name": "Japan", "formed": "1974"}), ("Band", {"formed": 1974}),
                           ("Album", {"name": "Quiet Life", "released": "1979-13-01T00:00:00Z"}),
                           ("Band", {"name": "Japan", "genre": "new wave"})):
        with pytest.raises(larder.InvalidParams) as staged:
            db.entity.stage(entity, [record])
        with pytest.raises(larder.InvalidParams) as parsed:
            db.entity.parse(entity, record)
        assert parsed.value.code == staged.value.code == -32602
        assert str(parsed.value) == str(staged.value).replace("records[0]", "json")
    with pytest.raises(larder.InvalidParams, match=r"record: Album \"Quiet Life\" lacks required attributes: released"):
        db.entity.render("Album", {"name": "Quiet Life", "band": "Japan"})
    with pytest.raises(larder.InvalidParams, match="so its band must be"):
        db.entity.render("Band", {"name": "Japan", "formed": 1974,
                                  "albums": [{"name": "Vienna", "released": "1980-07-11T00:00:00Z", "band": "Ultravox"}]})
    with pytest.raises(larder.EntityNotFound):
        db.entity.parse("Venue", {"id": "Budokan"})
    with pytest.raises(TypeError, match="one record"):
        db.entity.render("Band", [{"name": "Japan"}])


# -- the wrappers -------------------------------------------------------------

def test_argument_checks(db):
    with pytest.raises(TypeError, match="list of records"):
        db.entity.stage("Band", {"name": "Japan"})
    with pytest.raises(TypeError, match="list of identifiers"):
        db.entity.get_many("Band", "Japan")
    with pytest.raises(TypeError, match="entities"):
        db.entity.define("Bands")
    with pytest.raises(TypeError, match="not both"):
        db.entity.define({"model": "Bands", "entities": []}, [])


def test_records_are_sent_as_given():
    sent = []
    calls = larder.EntityMethods(lambda method, params, transform: sent.append((method, params)))
    record = {"other_names": "x", "nested": {"snake_key": 1}, "camelKey": None}
    calls.upsert("Band", (r for r in [record]), on_missing="null")
    calls.query("Band", where={"other_names": {"isNull": False}}, order_by=("-formed", "name"), include="albums")
    calls.define("Bands", [{"name": "Band", "attributes": {"id": "string"}}], date_format="epochSeconds",
                 reserved_words=("summary",))
    calls.apply()
    calls.count("Band")
    calls.render("Band", record)
    calls.parse("Band", record)
    assert sent == [
        ("entity.upsert", {"entity": "Band", "records": [record], "onMissing": "null"}),
        ("entity.query", {"entity": "Band", "where": {"other_names": {"isNull": False}},
                          "orderBy": ["-formed", "name"], "include": ["albums"]}),
        ("entity.define", {"model": "Bands", "entities": [{"name": "Band", "attributes": {"id": "string"}}],
                           "dateFormat": "epochSeconds", "reservedWords": ["summary"]}),
        ("entity.apply", {}),
        ("entity.count", {"entity": "Band"}),
        ("entity.render", {"entity": "Band", "record": record}),
        ("entity.parse", {"entity": "Band", "json": record}),
    ]


def _snake(name):
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def test_entity_wrappers_cover_the_openrpc_document(db):
    """Every entity.* method the server offers has a wrapper; once rpc.discover
    documents them, each wrapper sends exactly the documented parameters."""
    offered = sorted(m for m in db.init_result["capabilities"]["methods"] if m.startswith("entity."))
    assert offered, "this larder offers no entity methods"
    for name in offered:
        assert callable(getattr(db.entity, _snake(name.split(".", 1)[1]), None)), f"no wrapper for {name}"
    try:
        doc = db.discover()
    except larder.MethodNotFound:
        missing("this larder has no rpc.discover")
    documented = {m["name"]: {p["name"] for p in m.get("params", [])} for m in doc["methods"]}
    undocumented = [n for n in offered if n not in documented]
    if len(undocumented) == len(offered):
        missing("the OpenRPC document does not list the entity.* methods yet")
    assert not undocumented, f"rpc.discover does not document {undocumented}"
    for name in offered:
        wrapper = getattr(db.entity, _snake(name.split(".", 1)[1]))
        sent = {larder.cache.camel(p) for p in inspect.signature(wrapper).parameters}
        assert documented[name] <= sent, f"{name}: {sorted(documented[name] - sent)} cannot be passed"
        assert sent <= documented[name], f"{name}: {sorted(sent - documented[name])} are not documented"
