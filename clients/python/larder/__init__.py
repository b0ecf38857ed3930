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

from .cache import MISSING, CacheMethods, CacheView
from .objects import DROP, MigrateMethods, ObjectMethods, SchemaMethods
from .client import CLIENT_NAME, CLIENT_VERSION, Larder, Namespace, Pipeline, find_binary
from .errors import (
    CacheNotFound,
    InternalError,
    InvalidObject,
    InvalidParams,
    InvalidRequest,
    LarderError,
    MethodNotFound,
    MigrationFailed,
    MigrationMissing,
    NotAnObject,
    ParseError,
    RequestCancelled,
    RequestFailed,
    SchemaConflict,
    SchemaNotFound,
    ServerNotInitialized,
    SidecarExited,
    StorageFailure,
    StoreLocked,
    StoreUnavailable,
    error_class,
    error_from_json,
)

__version__ = CLIENT_VERSION

__all__ = [
    "Larder",
    "Pipeline",
    "Namespace",
    "CacheMethods",
    "CacheView",
    "SchemaMethods",
    "ObjectMethods",
    "MigrateMethods",
    "MISSING",
    "DROP",
    "find_binary",
    "LarderError",
    "ParseError",
    "InvalidRequest",
    "MethodNotFound",
    "InvalidParams",
    "InternalError",
    "ServerNotInitialized",
    "RequestCancelled",
    "RequestFailed",
    "StoreUnavailable",
    "StorageFailure",
    "StoreLocked",
    "CacheNotFound",
    "SchemaConflict",
    "SchemaNotFound",
    "InvalidObject",
    "NotAnObject",
    "MigrationMissing",
    "MigrationFailed",
    "SidecarExited",
    "error_class",
    "error_from_json",
    "__version__",
]
