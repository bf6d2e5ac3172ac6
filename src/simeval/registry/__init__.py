"""The benchmark registry (DESIGN.md, "Rooms"): every named benchmark and suite, the catalog's
and the user's, and what reads them.

- :mod:`.schema`: the entry types and the TOML grammar of a registry file;
- :mod:`.lookup`: :class:`Registry`, names to entries, listing;
- :mod:`.loaders`: an entry, or a path, read into a benchmark or suite.
"""

from simeval.registry.loaders import from_path
from simeval.registry.lookup import Registry

__all__ = ["Registry", "from_path"]
