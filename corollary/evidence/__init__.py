"""Evidence: the pure confidence formulas, safe arithmetic (an ast allowlist, never eval), and citation checks."""
