"""Package names: the name index, existence, and the typosquat judgement."""
