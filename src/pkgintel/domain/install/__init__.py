"""Pure install commands, one module per ecosystem family."""
