"""Pure dependency-tree rules, one module per ecosystem family."""
