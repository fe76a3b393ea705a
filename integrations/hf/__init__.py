"""One-GPU backend ``hf-local``: serve, judge, teach and train one checkpoint in one process (see README.md)."""
