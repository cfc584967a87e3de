"""`Graph`: the dependency-tree, tree-licence and health-history services as one `Runtime` field."""

from __future__ import annotations

from dataclasses import dataclass

from pkgintel.services.reports.history import HistoryService
from pkgintel.services.trees.licenses import TreeLicenseService
from pkgintel.services.trees.service import TreeService


@dataclass(frozen=True, slots=True)
class Graph:
    trees: TreeService
    licenses: TreeLicenseService
    history: HistoryService
