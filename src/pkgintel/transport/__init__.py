"""How the service reaches upstreams: the shared HTTP client, the per-upstream circuit breaker, the per-answer fetch memo, and task hygiene."""
