"""MCP front door: tools (`tools.py`), the server (`server.py`), streamable HTTP (`http.py`)."""
