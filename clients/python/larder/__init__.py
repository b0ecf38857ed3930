"""Python client for Larder, the persistence sidecar.

::

    import larder

    with larder.Larder.spawn(memory=True) as db:
        db.cache.set("greeting", {"text": "hello"}, ttl=60)
        print(db.cache.get("greeting")["value"])
        thumbs = db.cache_view("images", group="thumbs")
        thumbs["cat.png"] = b"\\x89PNG..."
"""

from .cache import MISSING, CacheMethods, CacheView
from .client import CLIENT_NAME, CLIENT_VERSION, Larder, Namespace, Pipeline, find_binary
from .errors import (
    CacheNotFound,
    InternalError,
    InvalidParams,
    InvalidRequest,
    LarderError,
    MethodNotFound,
    MigrationFailed,
    ParseError,
    RequestCancelled,
    RequestFailed,
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
    "MISSING",
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
    "MigrationFailed",
    "SidecarExited",
    "error_class",
    "error_from_json",
    "__version__",
]
