"""SpawnOptions: the arguments of both clients' spawn, declared once, given
by keyword as before or as options= that the arguments given override."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect

import pytest

import larder
from conftest import TEST_ARGS
from larder import SpawnOptions
from larder.aio import AsyncLarder

#: The arguments spawn took before SpawnOptions: the first five by position
#: too, in this order, and the rest by keyword only, with these defaults.
POSITIONAL = [("store", None), ("memory", False), ("binary", None), ("app_version", None), ("args", ())]
KEYWORD = [("events", False), ("migration_callbacks", None), ("on_migrate", None), ("fetch", False),
           ("fallback", None), ("client_info", None), ("initialize", True), ("env", None), ("encryption_key", None),
           ("encryption_keys", None), ("key_file", None), ("pg_schema", None), ("pg_coherence", None)]


def parameters(fn):
    return {p.name: (p.kind, p.default) for p in inspect.signature(fn).parameters.values()}


def expected(*own):
    found = {name: (inspect.Parameter.POSITIONAL_OR_KEYWORD, default) for name, default in POSITIONAL}
    found.update((name, (inspect.Parameter.KEYWORD_ONLY, default)) for name, default in [*KEYWORD, *own])
    return found


def test_spawn_takes_the_arguments_it_took_and_options():
    assert parameters(larder.Larder.spawn) == expected(("timeout", None), ("options", None))
    assert parameters(AsyncLarder.spawn) == expected(("options", None))
    assert [f.name for f in dataclasses.fields(SpawnOptions)] == [n for n, _ in [*POSITIONAL, *KEYWORD]]


def test_an_argument_spawn_does_not_take_is_refused_as_before():
    with pytest.raises(TypeError, match=r"^Larder\.spawn\(\) got an unexpected keyword argument 'memroy'$"):
        larder.Larder.spawn(memroy=True)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"^AsyncLarder\.spawn\(\) got an unexpected keyword argument 'timeout'$"):
        AsyncLarder.spawn(timeout=5)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"takes from 1 to 6 positional arguments but 7 were given"):
        larder.Larder.spawn(None, False, None, None, (), 1)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="options must be a SpawnOptions, not dict"):
        larder.Larder.spawn(options={"memory": True})  # type: ignore[arg-type]


def test_options_stand_for_the_arguments_not_given(binary, store_dir):
    shared = SpawnOptions(memory=True, binary=binary, args=TEST_ARGS, app_version="1.0")
    with larder.Larder.spawn(options=shared, timeout=60) as db:
        assert db.init_result is not None and db.init_result["store"]["persistent"] is False
        assert db.timeout == 60
    # memory=False given by keyword wins over the options' memory=True
    with larder.Larder.spawn(options=shared, memory=False, store=store_dir) as db:
        assert db.init_result is not None and db.init_result["store"]["path"] == str(store_dir)
    # and store given by position
    with larder.Larder.spawn(store_dir, False, options=shared) as db:
        assert db.init_result is not None and db.init_result["store"]["persistent"] is True
    with pytest.raises(ValueError, match="give store or memory=True, not both"):
        larder.Larder.spawn(options=shared, store=store_dir)


def test_the_asyncio_client_takes_options(binary):
    async def main() -> None:
        async with AsyncLarder.spawn(options=SpawnOptions(memory=True, binary=binary, args=TEST_ARGS)) as db:
            await db.cache.set("k", 1)
            assert await db.cache.get("k") == 1
            assert db.init_result is not None and db.init_result["store"]["persistent"] is False

    asyncio.run(main())


def test_the_options_repr_shows_no_key_environment_or_password():
    options = SpawnOptions(store="postgresql://app:s3cret@db:5432/app?sslmode=require&password=other", memory=False,
                           encryption_key=b"k" * 32, encryption_keys={"vault": "a2V5"}, env={"PGPASSWORD": "pw"},
                           pg_schema="shop")
    text = repr(options)
    assert text == ("SpawnOptions(store='postgresql://app:***@db:5432/app?sslmode=require&password=***', "
                    "env=***, encryption_key=***, encryption_keys=***, pg_schema='shop')")


def test_initialize_takes_the_same_keywords_on_both_clients():
    names = ["client_info", "app_version", "store", "events", "migration_callbacks", "fetch", "fallback",
             "encryption_key", "encryption_keys", "pg_schema", "pg_coherence"]
    for client in (larder.Larder, AsyncLarder):
        signature = inspect.signature(client.initialize)
        assert list(signature.parameters)[1:] == [*names, "extra"]
        assert all(signature.parameters[n].kind is inspect.Parameter.KEYWORD_ONLY for n in names)
    assert inspect.iscoroutinefunction(AsyncLarder.initialize)
    assert not inspect.iscoroutinefunction(larder.Larder.initialize)


def test_initialize_declares_migration_callbacks_when_a_handler_is_registered(binary):
    with larder.Larder.spawn(memory=True, binary=binary, initialize=False, timeout=60) as db:
        with pytest.raises(TypeError, match=r"Larder\.initialize\(\) takes 1 positional argument but 2 were given"):
            db.initialize({})  # type: ignore[call-arg]
        db.on_migrate(lambda params: params["value"])
        db.initialize(process_id=None)
        assert db.migration_callbacks is True
