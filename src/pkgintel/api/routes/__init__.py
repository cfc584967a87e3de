"""Routers by area."""
