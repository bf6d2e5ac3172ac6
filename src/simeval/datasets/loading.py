"""A benchmark or suite loaded through a registry, its collections built on first use by
their builder (:func:`simeval.datasets.bucc.build_collection`): the one loading path of
:func:`simeval.api.load_target` and the server's targets."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from simeval.data.store import DataStore
    from simeval.registry import Registry


def load(registry: Registry, name: str, store: DataStore | None = None, **how: Any) -> Any:
    """The benchmark or suite ``name`` of ``registry`` (or at path ``name``; ``how``: how a
    pair file reads), collections with a builder built once into the cache."""
    return registry.load(name, store, _build_collection, **how)


def _build_collection(entry: Any, store: Any) -> Any:
    """:func:`simeval.datasets.bucc.build_collection`, imported only when a collection is
    built (its XML and document readers are not needed for word benchmarks)."""
    from simeval.datasets.bucc import build_collection

    return build_collection(entry, store)
