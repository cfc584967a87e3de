"""Accounts: magic-link sign-in, sessions, API keys, the mailer and the rate limiter (issue 30)."""
