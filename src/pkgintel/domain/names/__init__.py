"""Pure package-name rules: validation, normalisation, near-name search and the typosquat model."""
