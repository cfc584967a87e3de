"""
Curated knowledge shipped as data inside the package (each list with its source), read lazily.

- `stdlib.py`: standard-library names per ecosystem (`stdlib/<ecosystem>.json`), for telling an
  import that needs no install from a registry package.
"""
