"""The real-model benchmark's cases and set-up (issue 39 item 6): see bench_real_models.py."""
