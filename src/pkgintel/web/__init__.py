"""
The web door: server-rendered pages for people (home, package, search, compare, error explorer,
live feed, scan, admin console, and the account pages when accounts exist).

Like `api` and `mcp` it is a door: it renders the same answers (`web.answers`, the only module that
reaches them) and imports neither of the other doors. `install_web` mounts it on the app.
"""

from __future__ import annotations

from fastapi import FastAPI

from pkgintel.web import assets
from pkgintel.web.answers import accounts_answers
from pkgintel.web.memo import PageMemo
from pkgintel.web.negotiation import BrowserRoot
from pkgintel.web.pages import accounts, admin, compare, errors, feed, home, package, scan, search


def install_web(app: FastAPI) -> None:
    """Add the pages, their assets and the `/` negotiation to `app` (none in the OpenAPI document)."""
    app.state.web_memo = PageMemo()
    for module in (assets, home, package, search, compare, errors, feed, scan, admin):
        app.include_router(module.router)
    if accounts_answers is not None:  # the account pages exist once accounts do (issue 30)
        app.include_router(accounts.router)
    app.add_middleware(BrowserRoot)
