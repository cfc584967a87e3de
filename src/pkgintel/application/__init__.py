"""Door-neutral answer functions: the JSON API, the MCP tools and the CLI call these, so every
door gives the same answer."""
