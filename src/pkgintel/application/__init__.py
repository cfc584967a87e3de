"""Door-neutral answers: the functions the HTTP, MCP and CLI doors call, each returning the JSON
body of one answer. No door imports another; they all import these."""
