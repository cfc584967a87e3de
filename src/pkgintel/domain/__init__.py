"""Pure domain values and rules; imports nothing else from `pkgintel`."""
