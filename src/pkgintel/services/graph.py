"""`Graph`: the dependency-tree, tree-licence and health-history services as one `Runtime` field."""

from __future__ import annotations

from dataclasses import dataclass

from pkgintel.services.history import HistoryService
from pkgintel.services.tree import TreeService
from pkgintel.services.tree_licenses import TreeLicenseService


@dataclass(frozen=True, slots=True)
class Graph:
    trees: TreeService
    licenses: TreeLicenseService
    history: HistoryService
