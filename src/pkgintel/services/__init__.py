"""
The capabilities: one package per capability, below the application layer and above the adapters.

A capability imports only capabilities below it (never one above, never a circle); peers on one
level do not import each other. From the bottom up:

1. `packages` — registry facts (`PackageService`, the snapshot codec), discovery; and `accounts`
   (sign-in by magic link, sessions, API keys, the rate limiter), which needs no other capability.
2. `names` — the name index, existence, typosquat judgement.
3. `advisories` (advisory data, verdicts over it, malicious, pin-safe) and `signals` (maintainers,
   trust, quality, Scorecard, provenance, artifacts).
4. `reports` — the package report, briefs, health history: built on everything below.
5. `knowledge` (alternatives, compare and the rest that read reports) and `trees`.
6. `audit` — many packages at once.
7. `operations` — jobs, missions, curator, doctor, usage log.
8. `usage` (figures, savings, privacy, the hallucination corpus, all read from the usage log) and
   `community` (anomaly reports, page views).

`tests/architecture/test_capability_layers.py` holds the code to this order.
"""
