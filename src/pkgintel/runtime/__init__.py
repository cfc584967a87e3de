"""Composition: the `Runtime` container of services, how it is built from the settings, the embedded worker, cron tasks, and start-up reachability."""
