"""Use cases: the only callers of adapters and stores. Front doors (API, CLI, MCP) call these."""
