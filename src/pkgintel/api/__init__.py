"""The JSON API (FastAPI routers by area); thin: validation in, service call, wire shape out."""
