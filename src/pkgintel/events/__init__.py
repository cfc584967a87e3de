"""Event buses that announce new live-feed events across processes (`base.EventBus`)."""
