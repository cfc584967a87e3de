"""Wire shapes: pydantic models (documented in OpenAPI) and the functions that fill them from services."""
