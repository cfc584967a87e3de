"""`NameService.typosquat` beyond the popular pool (ADR 0030): one-edit originals anywhere in the
name index, npm's legacy mixed-case twins, module names and requirement files typed as package
names, and established plugins left alone."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from pkgintel.domain.names.rules import NameEntry
from pkgintel.domain.packages import Ecosystem, PackageInfo
from pkgintel.services.names import pools as pools_module
from pkgintel.services.names.hints import TyposquatHint
from pkgintel.services.names.pools import WIDE_FLOOR
from pkgintel.services.names.service import NameService
from pkgintel.storage.migrate import upgrade
from pkgintel.storage.sql import SqlStore, create_engine

NPM = Ecosystem.NPM
PYPI = Ecosystem.PYPI


@pytest.fixture
async def names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[NameService]:
    # A popular pool of 3, so the mid-popular names below sit outside it, as on the real registry.
    monkeypatch.setattr(pools_module, "POPULAR_POOL", 3)
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite'}")
    await upgrade(engine)
    service = NameService(SqlStore(engine))
    npm = [
        ("lodash", 4 * 10**8),
        ("prop-types", 2 * 10**8),
        ("react", 10**8),
        ("node-hide-console-window", 1_867),
        ("shadowsocks", WIDE_FLOOR - 402),  # under the floor: not a target
        ("localforage-memoryStorageDriver", 81_369),
        ("jest-prop-types", 6_700),  # an established plugin of a far more popular package
        ("styled-component", 6_800),
        ("styled-components", 3 * 10**8),
        ("hanaonazure-client", 1_224),
        ("serviceworker-webpack-plugin", 76_000),
    ]
    await service.ingest(
        NPM,
        [NameEntry(NPM, n, n, monthly_downloads=d) for n, d in npm],
        source="t",
    )
    pypi = ["requests", "mysqlclient", "pyyaml", "sklearn"]
    await service.ingest(
        PYPI,
        [NameEntry(PYPI, n, n, popularity_rank=i + 1) for i, n in enumerate(pypi)]
        + [NameEntry(PYPI, "requirements-dev-txt", "requirements-dev.txt")],
        source="t",
    )
    yield service
    await engine.dispose()


def _suspects(hint: TyposquatHint) -> list[tuple[str, str]]:
    return [(m.name, m.technique) for m in hint.matches if m.suspected]


async def test_a_new_name_one_edit_from_a_used_package_outside_the_pool(
    names: NameService,
) -> None:
    hint = await names.typosquat(NPM, "node-hide-console-windows")
    assert hint.is_suspected
    assert _suspects(hint) == [("node-hide-console-window", "adjacent_key")]  # s beside w
    assert hint.matches[0].outside_pool
    # Under WIDE_FLOOR downloads a month the original draws no typo traffic worth the name: a
    # long new name one slip from it is still suspected on its shape (`unpopular_slip`)...
    low = await names.typosquat(NPM, "shadowsock")
    assert _suspects(low) == [("shadowsocks", "omission")]
    assert low.matches[0].outside_pool and low.matches[0].gap_basis == "unknown"
    # ... but a listed package of that shape owes its downloads to itself.
    listed = NameEntry(NPM, "shadowsock", "shadowsock", monthly_downloads=40, source="ingest")
    assert not (await names.typosquat(NPM, "shadowsock", listed)).is_suspected


async def test_a_lower_case_twin_of_a_legacy_mixed_case_name(names: NameService) -> None:
    hint = await names.typosquat(NPM, "localforage-memorystoragedriver")
    assert _suspects(hint) == [("localforage-memoryStorageDriver", "case_twin")]


async def test_a_legacy_upper_case_name_is_probed_lower_cased(names: NameService) -> None:
    # npm keeps the case of legacy names, so `Hanaonazure-client` is its own key: its lower-case
    # spelling, a used package outside the pool, is what it imitates.
    hint = await names.typosquat(NPM, "Hanaonazure-client")
    assert _suspects(hint) == [("hanaonazure-client", "case_twin")]
    assert hint.matches[0].outside_pool
    # One edit from it, typed in capitals, is still one edit.
    assert _suspects(await names.typosquat(NPM, "Hanaonazure-clients")) == [
        ("hanaonazure-client", "insertion")
    ]


async def test_an_established_plugin_is_not_a_suspect_but_a_slip_is(names: NameService) -> None:
    plugin = await names.typosquat(NPM, "jest-prop-types")
    assert not plugin.is_suspected
    assert "by a slip" in plugin.matches[0].why
    # The same downloads on an omission of a 5,000 times more popular name: typo traffic.
    slip = await names.typosquat(NPM, "styled-component")
    assert _suspects(slip) == [("styled-components", "omission")]


async def test_a_module_name_typed_as_a_package_name(names: NameService) -> None:
    hint = await names.typosquat(PYPI, "python-mysqldb")
    assert _suspects(hint) == [("mysqlclient", "import_name")]
    assert "MySQLdb" in hint.matches[0].detail
    # The placeholder `sklearn` is ranked, so established: a 1,000x gap would be needed.
    assert not (await names.typosquat(PYPI, "sklearn")).is_suspected


async def test_a_requirements_file_typed_as_a_package_name(names: NameService) -> None:
    for name in ("requiremetnstxt", "requiremntstx", "requirements.txt"):
        hint = await names.typosquat(PYPI, name)
        assert hint.is_suspected, name
        (target,) = [m for m in hint.matches if m.technique == "install_confusion"]
        assert target.name == "requirements.txt"
        assert "pip install -r requirements.txt" in target.detail
    listed = await names.typosquat(PYPI, "requirements-dev-txt")
    assert _suspects(listed) == [("requirements-dev.txt", "install_confusion")]
    assert not (await names.typosquat(PYPI, "requests")).is_suspected


async def test_a_scoped_name_without_its_scope_or_with_its_scope_flattened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pools_module, "POPULAR_POOL", 3)
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'scopes.sqlite'}")
    await upgrade(engine)
    service = NameService(SqlStore(engine))
    npm = [
        ("@azure/identity", 9 * 10**7),  # three popular @azure names make @azure common
        ("@azure/core-auth", 8 * 10**7),
        ("@azure/msal-node", 7 * 10**7),
        ("@azure/arm-logic", 122_793),
        ("@vitejs/plugin-react-refresh", 180_087),
        ("@autorest/modelerfour", 58_481),  # a scope no popular name carries
        ("@azure/arm-mixedreality", 680),  # under WIDE_FLOOR, in a common scope
        ("@autorest/codemodel-x", 680),  # under WIDE_FLOOR, in a rare scope
        ("prosemirror-schema-x", 600),  # listed, under WIDE_FLOOR
        ("@chatwoot/prosemirror-schema-x", 20_000),  # a fork under a rare scope
        *((f"@org{i}/eslint-config-x", 5_000) for i in range(3)),  # a common word
    ]
    await service.ingest(
        NPM, [NameEntry(NPM, n, n, monthly_downloads=d) for n, d in npm], source="t"
    )
    try:
        dropped = await service.typosquat(NPM, "arm-logic")
        assert _suspects(dropped) == [("@azure/arm-logic", "scope_confusion")]
        assert "without its scope" in dropped.matches[0].detail
        flattened = await service.typosquat(NPM, "vitejs-plugin-react-refresh")
        assert _suspects(flattened) == [("@vitejs/plugin-react-refresh", "scope_confusion")]
        # Under any scope of the index, for a new name...
        rare = await service.typosquat(NPM, "modelerfour")
        assert _suspects(rare) == [("@autorest/modelerfour", "scope_confusion")]
        # ... but a listed package is not a slip of a rare scope's fork: its downloads are its own.
        listed = await service.typosquat(NPM, "prosemirror-schema-x")
        assert not listed.is_suspected
        assert [m.name for m in listed.matches] == ["@chatwoot/prosemirror-schema-x"]
        # An organisation's scope lends its package the reputation WIDE_FLOOR asks for, down to
        # SCOPED_FLOOR, for new names; a rare scope does not.
        org = await service.typosquat(NPM, "arm-mixedreality")
        assert _suspects(org) == [("@azure/arm-mixedreality", "scope_confusion")]
        used = NameEntry(NPM, "arm-mixedreality", "arm-mixedreality", monthly_downloads=90)
        assert not (await service.typosquat(NPM, "arm-mixedreality", used)).is_suspected
        assert not (await service.typosquat(NPM, "codemodel-x")).is_suspected
        # A part three scopes publish is a common word.
        assert not (await service.typosquat(NPM, "eslint-config-x")).is_suspected
    finally:
        await engine.dispose()


async def test_a_never_asked_name_costs_no_suggestions(
    names: NameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `exists` would list "did you mean" names for an absent name (a range scan of the index);
    # typosquat needs only the entry.
    async def no_scan(*_: object) -> list[str]:
        raise AssertionError("typosquat must not scan for suggestions")

    monkeypatch.setattr(names._store, "list_names_near", no_scan)
    hint = await names.typosquat(NPM, "node-hide-console-windows")
    assert hint.is_suspected


async def test_an_answer_without_suggestions_is_completed_when_they_are_asked_for(
    names: NameService,
) -> None:
    quick = await names.exists(NPM, "lodahs", suggestions=False)
    assert quick.exists is False and quick.did_you_mean == ()
    full = await names.exists(NPM, "lodahs")
    assert "lodash" in full.did_you_mean
    # Once looked for, they are kept for the quick callers too.
    assert (await names.exists(NPM, "lodahs", suggestions=False)).did_you_mean == full.did_you_mean


async def test_an_expired_pool_answers_while_one_background_load_replaces_it(
    tmp_path: Path,
) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'ttl.sqlite'}")
    await upgrade(engine)
    now = [1_000_000.0]
    service = NameService(SqlStore(engine), clock=lambda: now[0])
    entries = [NameEntry(NPM, "lodash", "lodash", monthly_downloads=4 * 10**8)]
    try:
        await service.ingest(NPM, entries, source="t")
        first = await service.pools.get(NPM)
        now[0] += pools_module.POOL_TTL_S + 1
        # Expired: the same pool answers at once, and one reload starts.
        assert await service.pools.get(NPM) is first
        assert await service.pools.get(NPM) is first
        task = service.pools._refreshing[NPM]
        await task
        second = await service.pools.get(NPM)
        assert second is not first and second.loaded_at == now[0]
        assert service.pools._refreshing[NPM] is task  # no second reload was started
        # A new index drops the pool: the next call loads it, never answering from the old one.
        await service.ingest(NPM, [*entries, NameEntry(NPM, "react", "react")], source="t2")
        assert await service.pools.get(NPM) is not second
    finally:
        await engine.dispose()


async def test_a_pool_reload_over_the_same_index_keeps_its_key_filter_and_adds_live_names(
    tmp_path: Path,
) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'keys.sqlite'}")
    await upgrade(engine)
    store = SqlStore(engine)
    now = [1_000_000.0]
    service = NameService(store, clock=lambda: now[0])
    read: list[bool] = []
    real = store.list_name_keys

    async def counted(ecosystem: Ecosystem, *, live_only: bool = False) -> list[str]:
        read.append(live_only)
        return await real(ecosystem, live_only=live_only)

    store.list_name_keys = counted  # type: ignore[method-assign]
    entries = [NameEntry(NPM, "lodash", "lodash", monthly_downloads=4 * 10**8)]
    try:
        await service.ingest(NPM, entries, source="t")
        first = await service.pools.get(NPM)
        assert read == [False] and first.targets is not None
        assert not first.targets.might_contain("monolith-renderer")
        # A live lookup teaches the index a name; the next reload reads only such names.
        await service.record_seen(PackageInfo(NPM, "monolith-renderer", "1.0.0"), None)
        now[0] += pools_module.POOL_TTL_S + 1
        second = await service.pools.load(NPM)
        assert read == [False, True]
        assert second.targets is first.targets
        assert second.targets.might_contain("monolith-renderer")
        assert second.targets.might_contain("lodash")
        # A new index is read whole.
        await service.ingest(NPM, [*entries, NameEntry(NPM, "react", "react")], source="t2")
        third = await service.pools.get(NPM)
        assert read == [False, True, False] and third.targets is not first.targets
    finally:
        await engine.dispose()


async def test_a_pool_load_overtaken_by_a_new_index_is_not_kept(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'race.sqlite'}")
    await upgrade(engine)
    store = SqlStore(engine)
    service = NameService(store)
    await service.ingest(
        NPM, [NameEntry(NPM, "lodash", "lodash", monthly_downloads=10**8)], source="t"
    )
    real = store.list_popular_names

    async def slow(ecosystem: Ecosystem, limit: int) -> list[NameEntry]:
        found = await real(ecosystem, limit)
        service.index.forget(NPM)  # the index is loaded again while this load runs
        return found

    try:
        store.list_popular_names = slow  # type: ignore[method-assign]
        await service.pools.get(NPM)
        assert service.pools.kept(NPM) is None
    finally:
        await engine.dispose()


async def test_prefetch_probes_many_names_with_one_query_and_the_same_answers(
    names: NameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = ["node-hide-console-windows", "localforage-memorystoragedriver", "lodahs", "zzqqxxy"]
    alone = {n: _suspects(await names.typosquat(NPM, n, lookup=False)) for n in asked}
    names.pools.clear()  # a fresh pool: nothing cached
    calls: list[int] = []
    real = names._store.get_names

    async def counting(ecosystem: Ecosystem, keys: list[str]) -> dict[str, NameEntry]:
        calls.append(len(keys))
        return await real(ecosystem, keys)

    monkeypatch.setattr(names._store, "get_names", counting)
    # `lodahs` is a variant of a popular name, so it needs no probe; the other three do.
    assert await names.prefetch_wide(NPM, [(n, None) for n in asked]) == 3
    assert len(calls) == 1
    together = {n: _suspects(await names.typosquat(NPM, n, lookup=False)) for n in asked}
    assert together == alone
    assert len(calls) == 1  # the typosquat calls found every probe cached
    assert alone["node-hide-console-windows"] == [("node-hide-console-window", "adjacent_key")]


async def test_a_long_new_name_one_slip_from_a_project_of_unknown_popularity(
    tmp_path: Path,
) -> None:
    # PyPI ranks only its 15,000 most downloaded projects: beyond them the gap cannot be measured,
    # so only the shape of a long new name speaks (`unpopular_slip`).
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'unranked.sqlite'}")
    await upgrade(engine)
    service = NameService(SqlStore(engine))
    entries = [NameEntry(PYPI, "requests", "requests", popularity_rank=1)]
    entries += [NameEntry(PYPI, n, n) for n in ("monolith", "gate-api", "telebot-x")]
    await service.ingest(PYPI, entries, source="t")
    try:
        hint = await service.typosquat(PYPI, "monoliht")
        assert _suspects(hint) == [("monolith", "transposition")]
        (target,) = hint.matches
        assert target.outside_pool and target.rank is None
        assert "not among the 1 most downloaded" in target.popularity
        # Too short to tell from chance, a letter added (a word of its own: `gate-apis`), a
        # listed project: none is a suspect.
        assert not (await service.typosquat(PYPI, "monolih")).is_suspected
        assert not (await service.typosquat(PYPI, "gate-apis")).is_suspected
        listed = NameEntry(PYPI, "monoliht", "monoliht")
        assert not (await service.typosquat(PYPI, "monoliht", listed)).is_suspected
    finally:
        await engine.dispose()


async def test_a_listed_version_sibling_is_not_a_slip(names: NameService) -> None:
    # `webpack5` beside `webpack`: a number added is a version, so a listed package of that shape
    # owes its downloads to itself even under a 20x gap; a new one is still judged by its shape.
    sibling = NameEntry(
        NPM, "serviceworker-webpack5-plugin", "serviceworker-webpack5-plugin", monthly_downloads=9
    )
    listed = await names.typosquat(NPM, sibling.name, sibling)
    assert not listed.is_suspected
    assert [m.name for m in listed.matches] == ["serviceworker-webpack-plugin"]
    new = await names.typosquat(NPM, "serviceworker-webpack5-plugin")
    assert _suspects(new) == [("serviceworker-webpack-plugin", "insertion")]
    # A letter slip of the same listed size is typo traffic.
    slip = NameEntry(
        NPM, "serviceworker-webpak-plugin", "serviceworker-webpak-plugin", monthly_downloads=9
    )
    assert (await names.typosquat(NPM, slip.name, slip)).is_suspected
