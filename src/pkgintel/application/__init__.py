"""
The application layer: the answers every door (HTTP, MCP, CLI) gives. Each module holds the answer
functions of one capability; an answer takes the `Runtime` and plain arguments, calls the services and
returns the wire shape (`Answer` or a dict), raising domain errors for the door to render. Nothing here
knows about FastAPI, the MCP SDK or Typer.
"""
