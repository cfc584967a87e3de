"""Registry facts: `PackageService` (snapshots from cache, registry or stored copy), the snapshot codec, and discovery (search, popular, trending)."""
