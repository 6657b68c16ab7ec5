"""The facade: BeliefBase, and the helpers it composes (what assertions accept, blame, resolving by a person, lookups at the clock's time, what-ifs, recall)."""
