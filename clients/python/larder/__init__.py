"""Python client for Larder, the persistence sidecar.

::

    import larder

    with larder.Larder.spawn(memory=True) as db:
        db.cache.set("greeting", {"text": "hello"}, ttl=60)
        print(db.cache.get("greeting")["value"])
        thumbs = db.cache_view("images", group="thumbs")
        thumbs["cat.png"] = b"\\x89PNG..."
        db.schema.register("Note", "1", {"title": "string"})
        db.object.put("n1", "Note", {"title": "hi"})
"""

from ._params import MISSING
from .cache import CacheMethods, CacheView
from .fetch import NOT_FOUND, Fetched
from .objects import DROP, MigrateMethods, ObjectMethods, SchemaMethods
from .entities import EntityMethods
from .store import StoreMethods
from .locks import Lease, LockMethods
from .transaction import Transaction
from .binary import PgCoherence
from ._spawn import SpawnOptions
from .client import CLIENT_NAME, CLIENT_VERSION, Larder, Namespace, Pipeline, find_binary
from . import errors
from .errors import *  # noqa: F401,F403 - every error class is part of the package's interface

__version__ = CLIENT_VERSION

__all__ = [
    "Larder",
    "Pipeline",
    "Namespace",
    "SpawnOptions",
    "CacheMethods",
    "CacheView",
    "SchemaMethods",
    "ObjectMethods",
    "MigrateMethods",
    "EntityMethods",
    "StoreMethods",
    "LockMethods",
    "Lease",
    "Transaction",
    "MISSING",
    "DROP",
    "NOT_FOUND",
    "Fetched",
    "find_binary",
    "PgCoherence",
    "__version__",
    *errors.__all__,
]
