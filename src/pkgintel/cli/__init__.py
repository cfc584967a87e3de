"""The command-line door: `pkgintel` and its sub-commands, calling the same application layer as the HTTP and MCP doors."""
