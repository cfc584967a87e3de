"""Operating the service: what probes and operators read (door-neutral)."""
