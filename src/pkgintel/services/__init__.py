"""The capabilities: one package per capability, below the application layer and above the adapters."""
