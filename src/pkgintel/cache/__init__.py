"""Server-side cache behind one Protocol: in-process memory (default) or Redis (shared by workers)."""
