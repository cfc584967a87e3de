"""Pure values and rules of curated package knowledge: errors, compatibility, bugs, release notes."""
