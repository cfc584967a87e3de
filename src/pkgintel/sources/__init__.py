"""Data feeds and upstream services other than the registries: OSV exports and API, KEV, EPSS, name
lists, GitHub, Scorecard, deps.dev, Sigstore, provenance, translation; files and URLs in, domain values out."""
