"""
The shape of the public interface, reduced to what a client depends on: for each HTTP operation its
parameters, request body and declared statuses; for each schema its properties and their types; for
each MCP tool its input properties and the properties of its structured output.

Used to compare the interface before and after a refactoring (`test_interface_unchanged.py`).
"""

from __future__ import annotations

from typing import Any


def _type_of(schema: dict[str, Any]) -> Any:
    """A schema's type as a comparable value: a `$ref`'s name, a type, or the union of the variants."""
    if "$ref" in schema:
        return "ref:" + schema["$ref"].rsplit("/", 1)[-1]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return sorted({str(_type_of(s)) for s in schema[key]})
    if schema.get("type") == "array":
        return ["array", _type_of(schema.get("items", {}))]
    return schema.get("type", "any")


def http_shape(openapi: dict[str, Any]) -> dict[str, Any]:
    """Operations (`METHOD path`) and component schemas of an OpenAPI document, reduced."""
    operations: dict[str, Any] = {}
    for path, item in openapi["paths"].items():
        for method, op in item.items():
            if method not in {"get", "post", "put", "patch", "delete", "head"}:
                continue
            body = op.get("requestBody", {}).get("content", {})
            operations[f"{method.upper()} {path}"] = {
                "parameters": sorted(
                    f"{p['in']}:{p['name']}:{p.get('required', False)}:{_type_of(p.get('schema', {}))}"
                    for p in op.get("parameters", [])
                ),
                "body": sorted(f"{ct}:{_type_of(c.get('schema', {}))}" for ct, c in body.items()),
                "statuses": sorted(op.get("responses", {})),
            }
    schemas = {
        name: {prop: str(_type_of(s)) for prop, s in schema.get("properties", {}).items()}
        for name, schema in openapi.get("components", {}).get("schemas", {}).items()
    }
    return {"operations": operations, "schemas": schemas}


def mcp_shape(tools: list[dict[str, Any]]) -> dict[str, Any]:
    """MCP tools by name: input properties (with `required`) and output properties."""
    shape: dict[str, Any] = {}
    for tool in tools:
        inputs = tool.get("inputSchema", {})
        output = tool.get("outputSchema", {})
        shape[tool["name"]] = {
            "inputs": sorted(inputs.get("properties", {})),
            "required": sorted(inputs.get("required", [])),
            "outputs": sorted(output.get("properties", {})),
        }
    return shape
