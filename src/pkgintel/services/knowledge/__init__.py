"""Package knowledge: error resolution, compatibility, alternatives and migrations, breaking changes, bugs, compare, harvest, and the load of the shipped curated data."""
